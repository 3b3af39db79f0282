import Foundation
import Membership
public import PeezAPI

/// Sends the scan-log entries the service does not hold yet, in reports of at most 500, and records after
/// each confirmed report how far the service holds the log. A report whose answer was lost is sent again
/// and stored once, so nothing is lost or counted twice whenever the network or the process fails.
public struct ScanLogReport: Sendable {
    public let store: CounterStore
    public let client: CounterClient

    public init(store: CounterStore, client: CounterClient) {
        self.store = store
        self.client = client
    }

    /// What a report run did.
    public struct Outcome: Sendable, Equatable {
        /// Entries the service stored now.
        public var stored = 0
        /// Entries it already held (sent before, their answer lost).
        public var alreadyStored = 0
        /// Why entries after a broken link of the hash chain were not sent, if one is broken.
        public var brokenChain: String?
        /// Entries not stored for good, by number, and why: refused by the service, or (logged by an earlier
        /// version) breaking the rules the service reads entries by, so not sent. The report moves past them.
        public var refused: [ScanReportAnswer.Refusal] = []
    }

    /// Reports every entry after the last one the service confirmed.
    public func run() async throws -> Outcome {
        let (entries, integrity) = try store.scanLog.read()
        var outcome = Outcome()
        if case .broken(_, let reason) = integrity { outcome.brokenChain = reason }
        var reported = store.reportedThrough()
        if reported > (entries.last?.seq ?? 0) {
            // The log was started over (its numbers begin again at 1): a new series, or the service would take
            // the new entries for ones it holds.
            try store.startNewReportSeries()
            reported = 0
        }
        let counterID = try store.counterID()
        var pending = entries.drop { $0.seq <= reported }
        while !pending.isEmpty {
            let batch = Array(pending.prefix(CounterRules.shared.scanReportBatch))
            var sendable: [ScanLog.Entry] = []
            for entry in batch {
                let problems = entry.problems
                if problems.isEmpty {
                    sendable.append(entry)
                } else {
                    let reasons = problems.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: "; ")
                    outcome.refused.append(.init(seq: entry.seq, reason: "not sent: \(reasons)"))
                }
            }
            if !sendable.isEmpty {
                let answer = try await client.reportScans(counterID: counterID, entries: sendable)
                outcome.stored += answer.stored
                outcome.alreadyStored += answer.alreadyStored
                outcome.refused += answer.refused
            }
            try store.setReportedThrough(batch.last!.seq)
            pending = pending.dropFirst(batch.count)
        }
        return outcome
    }
}
