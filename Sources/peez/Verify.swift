import ArgumentParser
import CardCrypto
import CardToken
import CardWire
import Foundation
import PeezBasics

extension Peez {
    /// `peez verify`: the counter verifier.
    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Verify card tokens and presentations offline: signature, dates, revocation and, for a card bound to a phone, its fresh presentation.",
            discussion: """
                Give a token as an argument, or - to read one token per line from standard input (a handheld \
                scanner types a line per scan); each line is answered as it arrives and bad input never stops it. \
                Blank lines are skipped. A file of tokens is verified on --jobs cores at once, the answers in input \
                order, with a summary on standard error. With --image, every QR code in each PNG or JPEG photo or \
                screenshot (or in each such file of a folder) is verified, the file named before its verdict.

                A card bound to the member's phone is accepted only inside a presentation (PEEZP1:) its phone \
                signed within the window: made no more than --presentation-skew seconds ahead of this clock, and \
                no more than --presentation-skew plus --display-period seconds before it.

                Verdicts: valid, malformed, unsupported_algorithm, unknown_key, bad_signature, bad_claims, \
                expired, no_paid_period, not_yet_valid, revoked, presentation_required, card_not_bound, \
                bad_device_signature, stale_presentation, future_presentation.

                Examples:
                  peez verify --keys Keys/public PEEZ1:6BFOXN*TS0BI$ZD...
                  peez verify --keys Keys/public --json - < scans.txt
                  peez verify --keys Keys/public --image photo.jpg screenshots/

                Exit status: 0 when every token is valid, 1 when any is not (or an image has no QR code, or cannot \
                be read), 2 for a usage or key-loading error.
                """
        )

        @Option(name: .long, help: "Trusted public keys: a PEM file, a folder of them, or a key set from GET /v1/keys (.json); repeat for several.")
        var keys: [String]

        @Option(help: "A revocation list as JSON ({\"token_ids\": [hex], \"members\": {id: epoch}}).")
        var revocations: String?

        @Option(help: "Verify as if it were this time (ISO-8601 date-time, e.g. 2027-01-20T10:00:00+01:00, or epoch seconds).")
        var now: String?

        @Option(help: "Seconds of clock skew tolerated on expiry and issue time.")
        var leeway: Int64 = CardVerifier.defaultLeeway

        @Option(help: "Seconds a presentation's time may differ from this clock, either way.")
        var presentationSkew: Int64 = PresentationWindow.standard.skew

        @Option(help: "Seconds a phone shows one presentation; it is accepted that much longer.")
        var displayPeriod: Int64 = PresentationWindow.standard.displayPeriod

        @Flag(help: "Print one JSON object per token per line.")
        var json = false

        @Option(help: "Cores to verify a file of tokens on (default: all of this machine's).")
        var jobs: Int?

        @Option(parsing: .upToNextOption, help: "PNG or JPEG photos or screenshots of cards, or folders of them, instead of a token.")
        var image: [String] = []

        @Argument(help: "The token, or - to read tokens from standard input, one per line.")
        var token: String?

        func validate() throws {
            guard (token == nil) != image.isEmpty else {
                throw ValidationError(token == nil ? "give a token, - for standard input, or --image FILE" : "give a token or --image, not both")
            }
            guard !keys.isEmpty else { throw ValidationError("--keys needs at least one PEM file or folder") }
            guard leeway >= 0 else { throw ValidationError("--leeway must be zero or more seconds") }
            guard (0...86_400).contains(presentationSkew) else { throw ValidationError("--presentation-skew must be 0 to 86400 seconds") }
            guard (1...3_600).contains(displayPeriod) else { throw ValidationError("--display-period must be 1 to 3600 seconds") }
            guard (1...256).contains(jobs ?? 1) else { throw ValidationError("--jobs must be 1 to 256") }
            if let now, CardDates.parseInstant(now) == nil {
                throw ValidationError("--now '\(now)' is neither an ISO-8601 date-time (2027-01-20T10:00:00+01:00) nor epoch seconds")
            }
        }

        func run() async throws {
            // One reading of the clock (or of --now) for every verdict and every "days left" of this run.
            let now = self.now.flatMap(CardDates.parseInstant) ?? CardDates.now()
            var verifier = CardVerifier(
                trustedKeys: try TrustedKeyFiles.load(paths: keys),
                leeway: leeway,
                presentationWindow: PresentationWindow(skew: presentationSkew, displayPeriod: displayPeriod)
            )
            if let revocations {
                verifier.revocations = try RevocationFile.load(path: revocations)
            }
            let report = VerdictReport(json: json)
            var allValid = true
            if !image.isEmpty {
                allValid = verifyImages(try ImageInputs.expand(image), with: verifier, report: report, now: now)
            } else if token == "-" {
                var reader = LineReader(fileDescriptor: 0, maxLineLength: CardTokenFormat.maxTokenLength + 64)
                var batch = BatchVerifier(verifier: verifier, report: report, jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount)
                while let lines = reader.nextLines(upTo: 8_192) {
                    let tokens = lines.filter { line in
                        if case .text(let bytes) = line { return !bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 } }
                        return true
                    }
                    if !tokens.isEmpty { batch.answer(tokens, now: now) }
                }
                allValid = batch.total == (batch.counts[.valid] ?? 0)
                printError(batch.summary)
            } else {
                let result = verifier.verify(token ?? "", now: now)
                allValid = result.verdict == .valid
                report.write(result, now: now)
            }
            if !allValid { throw ExitCode(1) }
        }

        /// Verifies every code in every image; false when any is not valid or any file gave no code.
        private func verifyImages(_ files: [String], with verifier: CardVerifier, report: VerdictReport, now: Int64) -> Bool {
            var allValid = true
            ImageInputs.scan(files) { file, outcome in
                guard case .codes(let codes) = outcome else {
                    allValid = false
                    if json {
                        printNow(
                            "{\(JSONText.string("file")): \(JSONText.string(file)), \(JSONText.string("error")): \(JSONText.string(outcome.reason)), \(JSONText.string("detail")): \(JSONText.string(outcome.message))}"
                        )
                    } else {
                        printError("\(file): \(outcome.message)")
                    }
                    return
                }
                for code in codes {
                    let result = verifier.verify(utf8: code, now: now)
                    allValid = allValid && result.verdict == .valid
                    printNow(report.line(result, file: file, now: now))
                }
            }
            return allValid
        }
    }
}
