import ArgumentParser
import CardCrypto
import CardServices
import CardToken
import CardWire
import Foundation
import Membership
import MembershipSQL
import WalletPass

extension Peez {
    /// `peez wallet`: Apple Wallet passes.
    struct Wallet: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "wallet",
            abstract: "Check Apple Wallet passes (.pkpass), and see how the Wallet updates are going.",
            subcommands: [Check.self, Status.self]
        )
    }
}

extension Peez.Wallet {
    /// `peez wallet check`: why a pass would not open.
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a .pkpass as Wallet would, one line a check, each failure naming its fix.",
            discussion: """
                The checks: the archive (bounded), the files Wallet requires, every SHA-1 of manifest.json, the \
                detached signature over the manifest, the WWDR intermediate it must carry and its validity, the \
                pass type and team of the certificate against pass.json, the chain up to --apple-root, the keys \
                pass.json must have, the icon and logo sizes, and the barcode as a valid card for --keys.

                Examples:
                  peez wallet check card.pkpass --apple-root AppleRootCA.pem --keys Keys/public
                  peez wallet check card.pkpass

                Exit status: 0 when every check passes, 1 when any fails, 2 when the file cannot be read.
                """
        )

        @Argument(help: "The .pkpass file.")
        var pass: String

        @Option(help: "Apple's root certificate (PEM) to check the signature's chain up to.")
        var appleRoot: String?

        @Option(help: "Trusted card keys (PEM files, folders, or a key set .json), to check the barcode as a card.")
        var keys: [String] = []

        @Option(help: "Check as if it were this time (seconds since the epoch).")
        var now: Int64?

        func run() async throws {
            let bytes = try KeyFiles.readFile(pass, limit: PassArchive.maxArchiveBytes)
            let root = try appleRoot.map { path in try X509Certificate(pem: try KeyFiles.readFile(path), what: "--apple-root \(path)") }
            let verifier = keys.isEmpty ? nil : CardVerifier(trustedKeys: try TrustedKeyFiles.load(paths: keys))
            let report = PassCheck(bytes, appleRoot: root, verifier: verifier, now: now ?? CardDates.now())
            for finding in report.findings { printNow(finding.description) }
            if keys.isEmpty { printNow("ok    the barcode was not checked as a card: give --keys Keys/public (or the key set) to check it") }
            if !report.passed { throw ExitCode(1) }
        }
    }
}

extension Peez.Wallet {
    /// `peez wallet status`: the Wallet outboxes at a glance.
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Count Wallet passes and Google objects, the updates waiting, the oldest, and the failing with a reason.",
            discussion: """
                An update waits from the change it carries until every registered device (Apple) or Google has it; a \
                failing one is retried with backoff, its reason also in the service's log and in /metrics \
                (peez_wallet_pushes_total by channel and outcome).

                Example:
                  peez wallet status --database /var/lib/peez/peez.sqlite
                """
        )

        @OptionGroup var store: StoreOptions

        func run() async throws {
            let status = try await store.withStore { store in try await store.walletOutboxStatus() }
            let now = CardDates.now()
            func line(_ name: String, _ counts: WalletOutboxCounts, held: String) -> String {
                var text = "\(name): \(counts.total) \(held), \(counts.waiting) update(s) waiting"
                if let oldest = counts.oldestWaitingSince { text += ", the oldest for \(max(0, now - oldest)) s" }
                if counts.failing > 0 { text += ", \(counts.failing) failing (\(counts.lastError ?? "no reason recorded"))" }
                return text
            }
            printNow(line("Apple Wallet", status.apple, held: "pass(es) on \(status.appleDevices) device(s)"))
            printNow(line("Google Wallet", status.google, held: "object(s)"))
            // The certificates and keys the service would run with, each with its end (warned 30 days ahead).
            switch ServeConfiguration.asServeWouldRun(store: store, now: now) {
            case .success(let settings):
                for (part, state) in settings.parts.parts.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where state.status != .ok {
                    printNow("fail  \(part.rawValue): unavailable: \(state.reason ?? "")")
                }
                for expiry in settings.parts.expiries {
                    let (level, text) = expiry.standing(at: now)
                    printNow("\(level.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0))\(text)")
                }
            case .failure(let error):
                printNow("fail  the service's settings cannot be read: \(error)")
            }
        }
    }
}
