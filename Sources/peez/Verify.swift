import ArgumentParser
import CardCrypto
import CardToken
import CardWire
import Foundation

extension Peez {
    /// `peez verify`: the counter verifier.
    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Verify card tokens offline: signature, dates and revocation.",
            discussion: """
            Give a token as an argument, or - to read one token per line from standard input (a handheld \
            scanner types a line per scan); each line is answered as it arrives and bad input never stops it. \
            Blank lines are skipped.

            Verdicts: valid, malformed, unsupported_algorithm, unknown_key, bad_signature, bad_claims, \
            expired, not_yet_valid, revoked.

            Examples:
              peez verify --keys Keys/public PEEZ1:6BFOXN*TS0BI$ZD...
              peez verify --keys Keys/public --json - < scans.txt

            Exit status: 0 when every token is valid, 1 when any is not, 2 for a usage or key-loading error.
            """
        )

        @Option(name: .long, help: "Trusted public keys: a PEM file, a folder of them, or a key set from GET /v1/keys (.json); repeat for several.")
        var keys: [String]

        @Option(help: "A revocation list as JSON ({\"token_ids\": [hex], \"members\": {id: epoch}}).")
        var revocations: String?

        @Option(help: "Verify as if it were this time (seconds since the epoch).")
        var now: Int64?

        @Option(help: "Seconds of clock skew tolerated on expiry and issue time.")
        var leeway: Int64 = CardVerifier.defaultLeeway

        @Flag(help: "Print one JSON object per token per line.")
        var json = false

        @Argument(help: "The token, or - to read tokens from standard input, one per line.")
        var token: String

        func validate() throws {
            guard !keys.isEmpty else { throw ValidationError("--keys needs at least one PEM file or folder") }
            guard leeway >= 0 else { throw ValidationError("--leeway must be zero or more seconds") }
            guard (now ?? 0) >= 0 else { throw ValidationError("--now must be seconds since 1970, not before") }
        }

        func run() async throws {
            var verifier = CardVerifier(trustedKeys: try TrustedKeyFiles.load(paths: keys), leeway: leeway)
            if let revocations {
                verifier.revocations = try RevocationFile.load(path: revocations)
            }
            let report = VerdictReport(json: json)
            var allValid = true
            func answer(_ line: some Collection<UInt8>) {
                let result = verifier.verify(utf8: line, now: now ?? CardDates.now())
                allValid = allValid && result.verdict == .valid
                report.write(result)
            }
            if token == "-" {
                var reader = LineReader(fileDescriptor: 0, maxLineLength: CardTokenFormat.maxTokenLength + 64)
                while let line = reader.nextLine() {
                    switch line {
                    case .text(let bytes):
                        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
                        answer(bytes)
                    case .tooLong(let length):
                        allValid = false
                        report.write(VerificationResult(verdict: .malformed, detail: "a line of \(length)+ bytes is longer than any card token"))
                    }
                }
            } else {
                answer(Array(token.utf8))
            }
            if !allValid { throw ExitCode(1) }
        }
    }
}
