public import ArgumentParser
import CardCrypto
import CardQR
import CardToken
import Foundation

extension Peez {
    /// `peez card`: card tokens.
    struct Card: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "card",
            abstract: "Issue signed membership card tokens.",
            subcommands: [Issue.self]
        )
    }
}

extension QRErrorCorrection: ExpressibleByArgument {}

extension Peez.Card {
    /// `peez card issue`: sign one card.
    struct Issue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign a membership card token and print it; optionally render its QR code.",
            discussion: """
                --expires takes YYYY-MM-DD (valid through that whole day, Algiers time), an ISO-8601 date-time \
                (2026-12-31T18:00:00+01:00) or seconds since the epoch.

                Example:
                  key=Keys/development/signing-key.pem
                  peez card issue --key $key --member PEEZ-20251103-00002 --expires 2026-12-31
                  peez card issue --key $key --member PEEZ-20251103-00002 --png card.png
                  peez card issue --key $key --member PEEZ-20251103-00002 --terminal
                """
        )

        @Option(help: "The PKCS#8 Ed25519 private key to sign with (mode 0600).")
        var key: String

        @Option(help: "The membership id, e.g. PEEZ-20251103-00002.")
        var member: String

        @Option(help: "End of the paid period: YYYY-MM-DD, ISO-8601 or epoch seconds.")
        var expires: String

        @Option(help: "When the card was issued: ISO-8601 or epoch seconds (default: now). For test cards and demos.")
        var issuedAt: String?

        @Option(help: "The display name shown by verifiers (at most 128 UTF-8 bytes).")
        var name: String?

        @Option(help: "Write the QR code as a PNG file.")
        var png: String?

        @Option(help: "Write the QR code as an SVG file.")
        var svg: String?

        @Flag(help: "Show the QR code in this terminal.")
        var terminal = false

        @Option(help: "QR error correction: L, M, Q or H.")
        var errorCorrection: QRErrorCorrection = .medium

        @Option(help: "Pixels per QR module in the PNG and SVG.")
        var moduleSize = 8

        @Option(help: "Blank modules around the QR code.")
        var quietZone = 4

        func validate() throws {
            guard !member.isEmpty else { throw ValidationError("--member must not be empty") }
            guard CardDates.parseExpiry(expires) != nil else {
                throw ValidationError("--expires '\(expires)' is not YYYY-MM-DD, an ISO-8601 date-time or epoch seconds")
            }
            if let issuedAt, CardDates.parseInstant(issuedAt) == nil {
                throw ValidationError("--issued-at '\(issuedAt)' is not an ISO-8601 date-time or epoch seconds")
            }
            if let name, name.utf8.count > CardClaims.maxNameBytes {
                throw ValidationError("--name is \(name.utf8.count) UTF-8 bytes; at most \(CardClaims.maxNameBytes) fit on a card")
            }
            try QRLayout(moduleSize: moduleSize, quietZone: quietZone).validate()
        }

        func run() async throws {
            let signingKey = try KeyFiles.loadPrivateKey(path: key)
            let claims = CardClaims(
                subject: member,
                expiresAt: CardDates.parseExpiry(expires)!,
                issuedAt: issuedAt.flatMap(CardDates.parseInstant) ?? CardDates.now(),
                name: name
            )
            let token = try CardIssuer(signingKey: signingKey).issue(claims)
            print(token)

            guard png != nil || svg != nil || terminal else { return }
            let matrix = try QRMatrix.encode(token, errorCorrection: errorCorrection)
            let layout = QRLayout(moduleSize: moduleSize, quietZone: quietZone)
            if let png {
                try write(Data(try PNGRenderer(layout: layout).render(matrix)), to: png)
            }
            if let svg {
                try write(Data(try SVGRenderer(layout: layout).render(matrix).utf8), to: svg)
            }
            if terminal {
                printError(TerminalRenderer().render(matrix))
            }
        }

        private func write(_ data: Data, to path: String) throws {
            do {
                try data.write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                throw ValidationError("cannot write \(path): \(error.localizedDescription)")
            }
        }
    }
}
