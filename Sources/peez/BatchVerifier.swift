import CardToken
import Dispatch
import Foundation

/// Verifies the lines of a batch on several cores at once and gives the answers back in input order.
struct BatchVerifier {
    let verifier: CardVerifier
    let report: VerdictReport
    let jobs: Int

    /// How many of each verdict, for the summary.
    private(set) var counts: [Verdict: Int] = [:]
    private(set) var total = 0

    /// Answers every line of `lines` at `now`, writing the answers in order with one write.
    mutating func answer(_ lines: [LineReader.Line], now: Int64) {
        let results = lines.count < 2 * jobs ? lines.map { verify($0, now: now) } : verifyInParallel(lines, now: now)
        var output = ""
        output.reserveCapacity(results.count * 160)
        for result in results {
            counts[result.verdict, default: 0] += 1
            output += report.line(result, now: now)
            output += "\n"
        }
        total += results.count
        FileHandle.standardOutput.write(Data(output.utf8))
    }

    private func verify(_ line: LineReader.Line, now: Int64) -> VerificationResult {
        switch line {
        case .text(let bytes): return verifier.verify(utf8: bytes, now: now)
        case .tooLong(let length): return VerificationResult(verdict: .malformed, detail: "a line of \(length)+ bytes is longer than any card token")
        }
    }

    /// Each of `jobs` workers verifies one contiguous share of the lines into its own slots.
    private func verifyInParallel(_ lines: [LineReader.Line], now: Int64) -> [VerificationResult] {
        let slots = UnsafeMutableBufferPointer<VerificationResult>.allocate(capacity: lines.count)
        defer { slots.deallocate() }
        nonisolated(unsafe) let shared = slots
        let share = (lines.count + jobs - 1) / jobs
        DispatchQueue.concurrentPerform(iterations: jobs) { job in
            let start = job * share, end = min(start + share, lines.count)
            guard start < end else { return }
            for index in start..<end { (shared.baseAddress! + index).initialize(to: verify(lines[index], now: now)) }
        }
        let results = Array(slots)
        _ = slots.deinitialize()  // every slot was initialized above: the shares cover the whole range
        return results
    }

    /// `12 tokens: 9 valid, 2 expired, 1 revoked`.
    var summary: String {
        let parts = Verdict.allCases.compactMap { verdict in counts[verdict].map { "\($0) \(verdict.rawValue)" } }
        return "\(total) token(s): " + (parts.isEmpty ? "none" : parts.joined(separator: ", "))
    }
}
