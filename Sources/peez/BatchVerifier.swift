import CardToken
import Dispatch
import Foundation

/// Verifies the lines of a batch on several cores at once and writes the answers in input order.
struct BatchVerifier {
    let verifier: CardVerifier
    let report: VerdictReport
    let jobs: Int

    /// How many of each verdict, for the summary.
    private(set) var counts: [Verdict: Int] = [:]
    private(set) var total = 0

    /// What one worker made of its share of a batch: the answers' text, and how many of each verdict.
    private struct Share {
        var text = ""
        var counts: [Verdict: Int] = [:]
    }

    /// Answers every line of `lines` at `now`, writing the answers in order with one write.
    mutating func answer(_ lines: [LineReader.Line], now: Int64) {
        let workers = lines.count < 2 * jobs ? 1 : jobs
        let perWorker = (lines.count + workers - 1) / workers
        let shares = UnsafeMutableBufferPointer<Share>.allocate(capacity: workers)
        shares.initialize(repeating: Share())
        defer {
            shares.deinitialize()
            shares.deallocate()
        }
        nonisolated(unsafe) let slots = shares
        let (verifier, report) = (verifier, report)
        // Each worker verifies and formats one contiguous share into its own slot; verifying and formatting
        // both run in parallel, so only the write is serial.
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var share = Share()
            share.text.reserveCapacity(perWorker * 160)
            for line in lines[min(worker * perWorker, lines.count)..<min((worker + 1) * perWorker, lines.count)] {
                let result: VerificationResult
                switch line {
                case .text(let bytes): result = verifier.verify(utf8: bytes, now: now)
                case .tooLong(let length):
                    result = VerificationResult(verdict: .malformed, detail: "a line of \(length)+ bytes is longer than any card token")
                }
                share.counts[result.verdict, default: 0] += 1
                share.text += report.line(result, now: now)
                share.text += "\n"
            }
            slots[worker] = share
        }
        var output = ""
        for share in shares {
            output += share.text
            counts.merge(share.counts, uniquingKeysWith: +)
        }
        total += lines.count
        FileHandle.standardOutput.write(Data(output.utf8))
    }

    /// `12 token(s): 9 valid, 2 expired, 1 revoked`.
    var summary: String {
        let parts = Verdict.allCases.compactMap { verdict in counts[verdict].map { "\($0) \(verdict.rawValue)" } }
        return "\(total) token(s): " + (parts.isEmpty ? "none" : parts.joined(separator: ", "))
    }
}
