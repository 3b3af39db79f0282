import ArgumentParser
import CardCrypto
import CardQR
import CardToken
import Foundation
import PeezBasics

extension Peez.Card {
    /// `peez card present`: what the member's phone shows for a bound card.
    struct Present: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a presentation of a card bound to a device: what the member's phone shows, renewed every 30 s.",
            discussion: """
                A card bound to a device key (registered with POST /v1/members/{uuid}/device-key) is accepted at \
                a counter only inside a presentation that key signed moments before: a PEEZP1: text holding the \
                card and the time it was made. This prints one made now (or at --at), and draws its QR code as \
                asked; --watch draws a new one on this terminal every --display-period seconds until Ctrl-C, as \
                the app does. The card must be bound to the public half of --device-key.

                Examples:
                  peez keys generate --device --out phone
                  card=$(curl -s -H "$AUTH" $PEEZ_URL/v1/members/$M/card | jq -r .token)
                  dk=phone/device-key.pem
                  peez card present --device-key $dk --card "$card" --png presentation.png
                  peez card present --device-key $dk --card "$card" --watch
                """
        )

        @Option(help: "The device's PKCS#8 Ed25519 private key (mode 0600), from peez keys generate --device.")
        var deviceKey: String

        @Option(help: "The card token (PEEZ1:…), or - to read it from standard input.")
        var card: String

        @Option(help: "Make it as if it were this time: ISO-8601 or epoch seconds (default: now). For tests and demos.")
        var at: String?

        @Flag(help: "Draw a fresh presentation on this terminal every --display-period seconds, until interrupted.")
        var watch = false

        @Option(help: "Seconds between presentations with --watch.")
        var displayPeriod: Int64 = Presentation.displayPeriod

        @OptionGroup var picture: QROutputOptions

        func validate() throws {
            if let at, CardDates.parseInstant(at) == nil {
                throw ValidationError("--at '\(at)' is not an ISO-8601 date-time or epoch seconds")
            }
            guard (1...3_600).contains(displayPeriod) else { throw ValidationError("--display-period must be 1 to 3600 seconds") }
            guard !(watch && at != nil) else { throw ValidationError("--watch makes presentations now; it takes no --at") }
        }

        func run() async throws {
            let key = try KeyFiles.loadPrivateKey(path: deviceKey)
            let maker = try PresentationMaker(
                cardToken: try cardText(),
                deviceKey: key,
                publicKey: try DeviceKey(rawRepresentation: key.publicKey.rawRepresentation)
            )
            guard watch else {
                let presentation = try maker.present(at: at.flatMap(CardDates.parseInstant) ?? CardDates.now())
                print(presentation)
                try picture.draw(presentation)
                return
            }
            while !Task.isCancelled {
                let now = CardDates.now()
                let presentation = try maker.present(at: now)
                let drawing = TerminalRenderer().render(try picture.matrix(of: presentation))
                let caption =
                    "\(maker.claims.name ?? maker.claims.subject) · \(maker.claims.subject) · made \(AlgiersCalendar.iso8601(now)) · next in \(displayPeriod) s · Ctrl-C to stop"
                // Clear the screen and draw from its top-left corner, so the code stays in place.
                FileHandle.standardOutput.write(Data(("\u{1B}[2J\u{1B}[H" + drawing + caption + "\n").utf8))
                try await Task.sleep(for: .seconds(displayPeriod))
            }
        }

        /// The card's text: the option, or one line of standard input for `-`.
        private func cardText() throws -> String {
            guard card == "-" else { return card }
            var reader = LineReader(fileDescriptor: 0, maxLineLength: CardTokenFormat.maxTokenLength + 64)
            guard case .text(let bytes)? = reader.nextLine() else { throw ValidationError("--card -: no card token on standard input") }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
