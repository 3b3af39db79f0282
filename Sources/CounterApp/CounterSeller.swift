import Foundation
public import Membership

/// Sends the counter's cash sales: each one journaled before it is sent, sent again under the same key while
/// its answer is unknown, with growing pauses, and its answer journaled. A sale whose answer never came stays
/// pending for `peez counter retry`, still under its first key, so one payment is never two activations.
public struct CounterSeller: Sendable {
    public enum Outcome: Sendable, Equatable {
        case recorded(coverageEnd: String)
        case refused(CounterProblem)
        /// No answer yet, after every attempt: the sale is still pending in the journal.
        case pending(CounterProblem)
    }

    public let client: CounterClient
    public let journal: SaleJournal
    /// The pauses between attempts (each with up to a quarter more, at random, so counters do not retry in step).
    public var pauses: [Duration]

    /// A seller that makes up to `attempts` attempts, pausing 0.5 s, 1 s, 2 s, 4 s, 8 s… between them.
    public init(client: CounterClient, journal: SaleJournal, attempts: Int = 6) {
        self.client = client
        self.journal = journal
        self.pauses = (0..<max(0, attempts - 1)).map { .milliseconds(500 << min($0, 6)) }
    }

    /// Sends `sale` until its answer is known or the attempts run out, and journals the answer.
    public func send(_ sale: SaleJournal.PendingSale, now: WallClock) async throws -> Outcome {
        var lastProblem = CounterProblem("problem.unreachable", detail: "not sent")
        for attempt in 0...pauses.count {
            if attempt > 0 {
                let pause = pauses[attempt - 1]
                try? await Task.sleep(for: pause + pause * Double.random(in: 0...0.25))
            }
            do {
                switch try await client.sell(membershipID: sale.membershipID, months: sale.months, amountDZD: sale.amountDZD, key: sale.key) {
                case .recorded(let coverageEnd):
                    try journal.finish(key: sale.key, confirmedWith: coverageEnd, now: now())
                    return .recorded(coverageEnd: coverageEnd)
                case .refused(let problem):
                    try journal.finish(key: sale.key, refusedBecause: problem.detail, problem: problem.key, now: now())
                    return .refused(problem)
                }
            } catch let error as CounterClientError {
                lastProblem = error.problem
            } catch {
                lastProblem = CounterProblem("problem.unexpected", detail: "\(error)")
            }
        }
        return .pending(lastProblem)
    }
}
