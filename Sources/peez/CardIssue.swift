import ArgumentParser
import CardCrypto
import CardToken
import Foundation

extension Peez {
    /// `peez card`: card tokens.
    struct Card: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "card",
            abstract: "Issue signed membership card tokens, and present a bound card as its phone does.",
            subcommands: [Issue.self, Present.self]
        )
    }
}

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
                  m=PEEZ-20251103-00002
                  peez card issue --key $key --member $m --expires 2026-12-31
                  peez card issue --key $key --member $m --expires 2026-12-31 --png card.png
                  peez card issue --key $key --member $m --expires 2026-12-31 --terminal
                  pub=phone/device-key.pub.pem
                  peez card issue --key $key --member $m --expires 2026-12-31 --device-key $pub
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

        @Option(
            help:
                "Bind the card to this device public key (a PEM from peez keys generate --device): it is then accepted only in presentations that key signs."
        )
        var deviceKey: String?

        @OptionGroup var picture: QROutputOptions

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
        }

        func run() async throws {
            let signingKey = try KeyFiles.loadPrivateKey(path: key)
            let claims = CardClaims(
                subject: member,
                expiresAt: CardDates.parseExpiry(expires)!,
                issuedAt: issuedAt.flatMap(CardDates.parseInstant) ?? CardDates.now(),
                name: name,
                deviceKey: try deviceKey.map { path in try DeviceKey(rawRepresentation: try KeyFiles.loadPublicKey(path: path).rawRepresentation) }
            )
            let token = try CardIssuer(signingKey: signingKey).issue(claims)
            print(token)
            try picture.draw(token)
        }
    }
}
