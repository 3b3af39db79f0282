import Foundation

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
            let batch = Array(pending.prefix(500))
            let (stored, already) = try await client.reportScans(counterID: counterID, entries: batch)
            outcome.stored += stored
            outcome.alreadyStored += already
            try store.setReportedThrough(batch.last!.seq)
            pending = pending.dropFirst(batch.count)
        }
        return outcome
    }
}
