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
            Blank lines are skipped. A file of tokens is verified on --jobs cores at once, the answers in input \
            order, with a summary on standard error.

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

        @Option(help: "Cores to verify a file of tokens on (default: all of this machine's).")
        var jobs: Int?

        @Argument(help: "The token, or - to read tokens from standard input, one per line.")
        var token: String

        func validate() throws {
            guard !keys.isEmpty else { throw ValidationError("--keys needs at least one PEM file or folder") }
            guard leeway >= 0 else { throw ValidationError("--leeway must be zero or more seconds") }
            guard (1...256).contains(jobs ?? 1) else { throw ValidationError("--jobs must be 1 to 256") }
            guard (now ?? 0) >= 0 else { throw ValidationError("--now must be seconds since 1970, not before") }
        }

        func run() async throws {
            var verifier = CardVerifier(trustedKeys: try TrustedKeyFiles.load(paths: keys), leeway: leeway)
            if let revocations {
                verifier.revocations = try RevocationFile.load(path: revocations)
            }
            let report = VerdictReport(json: json)
            var allValid = true
            if token == "-" {
                var reader = LineReader(fileDescriptor: 0, maxLineLength: CardTokenFormat.maxTokenLength + 64)
                var batch = BatchVerifier(verifier: verifier, report: report, jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount)
                while let lines = reader.nextLines(upTo: 8_192) {
                    let tokens = lines.filter { line in
                        if case .text(let bytes) = line { return !bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 } }
                        return true
                    }
                    if !tokens.isEmpty { batch.answer(tokens, now: now ?? CardDates.now()) }
                }
                allValid = batch.total == (batch.counts[.valid] ?? 0)
                printError(batch.summary)
            } else {
                let result = verifier.verify(token, now: now ?? CardDates.now())
                allValid = result.verdict == .valid
                report.write(result)
            }
            if !allValid { throw ExitCode(1) }
        }
    }
}
