import ArgumentParser
import Foundation

/// The `peez` command line: card keys, card issuance and counter verification.
@main
struct Peez: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "peez",
        abstract: "PEEZ membership cards: the card service, keys, signed card tokens, QR codes and offline verification.",
        discussion: """
            A card token is a signed PEEZ1: text (COSE_Sign1 + CWT + Base45) shown as a QR code in the \
            member's app and checked at the counter without a network.

            Examples:
              peez keys generate --out Keys/mine
              key=Keys/mine/signing-key.pem
              peez card issue --key $key --member PEEZ-20251103-00002 --png card.png
              peez verify --keys Keys/public PEEZ1:...
              # one token per line, as a handheld scanner types them:
              peez verify --keys Keys/public -
              # the card service's HTTP API with demo data:
              peez serve --development

            Exit status: 0 when every token is valid, 1 when any is not, 2 for a usage or key-loading error.
            """,
        version: "1.0.0",
        subcommands: [
            Serve.self, Check.self, Admin.self, Keys.self, Card.self, Verify.self, Counter.self, Remind.self, Wallet.self, Payments.self, Backup.self,
            Dev.self,
        ]
    )

    /// Runs the command line, mapping every failure to exit status 2 with a message on standard error: a
    /// usage error found while parsing or in `validate()` with the command's usage, as ArgumentParser prints
    /// it; an error from `run()` (a file, a database, a key) as one `Error:` line saying what went wrong.
    static func main() async {
        var running = false
        do {
            var command = try parseAsRoot()
            running = true
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue)
        } catch {
            if exitCode(for: error) == .success { exit(withError: error) }
            let message = running ? message(for: error) : fullMessage(for: error)
            FileHandle.standardError.write(Data((message.hasPrefix("Error") ? message : "Error: \(message)").utf8 + [0x0A]))
            Foundation.exit(2)
        }
    }
}
