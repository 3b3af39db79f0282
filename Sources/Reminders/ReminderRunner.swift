import Foundation
public import Membership
import PeezBasics

/// One reminder run: records the reminders due now, then leases, delivers and settles them in batches until
/// none is left that can be delivered within `maxWait` (a retry due a few seconds later, or a lease another
/// run holds, is waited for; a retry due in an hour is left to a later run).
///
/// Exactly once: a reminder is recorded under its unique key before any delivery, leased before it is sent
/// (two runs never hold it at once; a delivery starts only while the lease outlasts it, renewed as needed:
/// ``ReminderLease``), and settled right after its answer. A run killed between a delivery and its settling
/// leaves the lease to expire; the next run sends that reminder again, with the same id.
public struct ReminderRunner: Sendable {
    public var store: any ReminderStore
    public var sink: any ReminderSink
    public var templates: ReminderTemplates
    public var schedule: RetrySchedule
    /// The channel reminders are recorded for (part of their unique key).
    public var channel: String
    public var batchSize: Int
    public var leaseSeconds: Int64
    public var maxWaitSeconds: Int64
    public var clock: WallClock
    /// This run's name on the leases it takes.
    public let owner = "run-" + UUID().uuidString.lowercased()

    public init(
        store: any ReminderStore,
        sink: any ReminderSink,
        templates: ReminderTemplates = .builtIn,
        schedule: RetrySchedule = RetrySchedule(),
        channel: String = "push",
        batchSize: Int = 500,
        leaseSeconds: Int64 = 60,
        maxWaitSeconds: Int64 = 30,
        clock: WallClock
    ) {
        self.store = store
        self.sink = sink
        self.templates = templates
        self.schedule = schedule
        self.channel = channel
        self.batchSize = batchSize
        self.leaseSeconds = leaseSeconds
        self.maxWaitSeconds = maxWaitSeconds
        self.clock = clock
    }

    /// What a run did: reminders recorded, and what became of every delivery it settled.
    public struct Summary: Sendable, Equatable {
        /// New reminders recorded by this run's selection.
        public var due = 0
        /// Open reminders when delivery began (this run's and earlier runs' left-overs).
        public var open = 0
        public var delivered = 0
        public var failed = 0
        /// Sent without an answer: open, retried with the same id.
        public var unknown = 0
        public var superseded = 0
        public var exhausted = 0
        /// Not delivered this time, retried later (as pending).
        public var retrying = 0
        /// Open reminders no run holds when this one ended (retries due later, or left by a run that died).
        public var leftOpen = 0
        /// Open reminders another run was delivering when this one ended: that run answers for them.
        public var heldByOtherRuns = 0
        /// Reminders this run tried and left to retry, which another (overlapping) run then settled.
        public var settledByOtherRuns = 0
        /// Seconds the selection took (finding and recording the due reminders).
        public var selectionSeconds = 0.0
        /// Seconds from the first lease to the last settling.
        public var deliverySeconds = 0.0

        /// Every reminder was delivered or made stale by a renewal, but those another run is delivering.
        public var allDelivered: Bool { failed == 0 && exhausted == 0 && leftOpen == 0 }

        /// Reminders this run settled, whatever their outcome.
        public var settled: Int { delivered + failed + unknown + superseded + exhausted + retrying }

        mutating func count(_ state: Reminder.State, by change: Int) {
            switch state {
            case .delivered: delivered += change
            case .failed: failed += change
            case .superseded: superseded += change
            case .exhausted: exhausted += change
            case .unknown: unknown += change
            case .pending: retrying += change
            }
        }
    }

    /// Runs to the end; `progress` hears after each batch (settled so far, open at the start).
    public func run(progress: @Sendable (Summary) -> Void = { _ in }) async throws -> Summary {
        let shortestLease = ReminderLease.shortestLease(forDeliveriesOf: sink.longestDeliverySeconds)
        guard leaseSeconds >= shortestLease else {
            throw ReminderSinkError(
                "a lease of \(leaseSeconds) s cannot outlast one delivery (up to \(sink.longestDeliverySeconds) s) and its record: give at least \(shortestLease) s"
            )
        }
        var summary = Summary()
        let started = ContinuousClock.now
        summary.due = try await store.recordDueReminders(channel: channel, now: clock(), batchSeconds: 3_600)
        summary.selectionSeconds = Self.seconds(since: started)
        let delivering = ContinuousClock.now
        let counts = try await store.reminderCounts(channel: channel)
        summary.open = (counts[.pending] ?? 0) + (counts[.unknown] ?? 0)
        var retrying: [String: Reminder.State] = [:]
        // The next batch is leased while this one is delivered and settled: the database and the sink work at once.
        var nextBatch = lease()
        defer { nextBatch.cancel() }
        while true {
            let (leased, leasedUntil) = try await nextBatch.cancellingValue
            if leased.isEmpty {
                let now = clock()
                guard let next = try await store.nextOpenReminderTime(channel: channel), next - now <= maxWaitSeconds else { break }
                try await Task.sleep(for: .milliseconds(max(100, (next - now) * 1_000)))
                nextBatch = lease()
                continue
            }
            nextBatch = lease()
            let sentAt = clock()
            let timestamp = AlgiersCalendar.iso8601(sentAt)
            let stale = leased.filter(\.isSuperseded)
            let fresh = leased.filter { !$0.isSuperseded }
            let messages = fresh.map {
                ReminderDelivery(id: $0.reminder.id, body: ReminderMessage($0, templates: templates, now: sentAt, timestamp: timestamp).json())
            }
            let lease = ReminderLease(
                store: store,
                owner: owner,
                ids: messages.map(\.id),
                validUntil: leasedUntil,
                leaseSeconds: leaseSeconds,
                longestDeliverySeconds: sink.longestDeliverySeconds,
                clock: clock
            )
            let outcomes = messages.isEmpty ? [] : await sink.deliver(messages) { await lease.mayStart($0) }
            let settled = zip(fresh.map(\.reminder), outcomes).map { ($0, $1) } + stale.map { ($0.reminder, ReminderOutcome.superseded) }
            let states = try await store.settleReminders(settled, owner: owner, schedule: schedule, now: clock())
            for (state, (reminder, _)) in zip(states, settled) {
                // A reminder counts once, in the state it is in now: one retried earlier in this run moves on.
                if let earlier = retrying.removeValue(forKey: reminder.id) { summary.count(earlier, by: -1) }
                summary.count(state, by: 1)
                if state.isOpen { retrying[reminder.id] = state }
            }
            progress(summary)
        }
        summary.deliverySeconds = Self.seconds(since: delivering)
        let now = clock()
        (summary.leftOpen, summary.heldByOtherRuns) = try await store.openReminderCounts(channel: channel, now: now)
        // What this run left to retry is "retrying later" only if no other run has taken it over since: one
        // that another run holds is counted as held, one it settled as settled by another run.
        let stillOpen = try await store.openReminders(ids: Array(retrying.keys), now: now)
        for (id, state) in retrying where !stillOpen.free.contains(id) {
            summary.count(state, by: -1)
            if !stillOpen.leased.contains(id) { summary.settledByOtherRuns += 1 }
        }
        return summary
    }

    /// Leases the next batch, in a task of its own; with it, when the lease ends.
    private func lease() -> Task<([DueReminder], leasedUntil: Int64), any Error> {
        Task {
            let now = clock()
            return (
                try await store.leaseReminders(channel: channel, owner: owner, limit: batchSize, now: now, leaseSeconds: leaseSeconds),
                now + leaseSeconds
            )
        }
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let (whole, fraction) = (ContinuousClock.now - start).components
        return Double(whole) + Double(fraction) / 1e18
    }
}
