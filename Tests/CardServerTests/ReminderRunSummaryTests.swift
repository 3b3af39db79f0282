import HTTPTypes
import Membership
import MembershipSQL
import Reminders
import Synchronization
import Testing

/// What a `peez remind run` reports when another run overlaps it, on a real SQLite ledger.
@Suite("Reminder run summary")
struct ReminderRunSummaryTests {
    /// Answers "busy, retry in a second" to every delivery: the run leaves each reminder to retry.
    struct BusyReceiver: ReminderSink {
        var longestDeliverySeconds: Int64 { 1 }

        func deliver(_ messages: [ReminderDelivery], mayStart: @escaping @Sendable (String) async -> Bool) async -> [ReminderOutcome] {
            messages.map { _ in .retry("busy", sent: false, retryAfter: 1) }
        }

        func close() async {}
    }

    @Test func remindersAnotherRunSettledAreNotCountedAsRetryingLater() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            for index in 1...2 {
                let member = try await client.createMember(index)
                #expect(try await client.activate(token: try await client.cardToken(member)).status == .created)
            }
            let start = harness.now + 28 * 86_400
            let now = Mutex(start)
            let clock = WallClock { now.withLock { $0 } }
            let store = harness.store
            let runA = ReminderRunner(store: store, sink: BusyReceiver(), leaseSeconds: 10, maxWaitSeconds: 30, clock: clock)
            async let summaryOfA = runA.run()

            // Run b, overlapping: once run a has left both reminders to retry, it takes them over and delivers them.
            for attempt in 1...500 {
                if try await leftToRetry(store, now: start) == 2 { break }
                if attempt == 500 { Issue.record("run a never left its reminders to retry") }
                try await Task.sleep(for: .milliseconds(10))
            }
            now.withLock { $0 = start + 5 }
            let taken = try await store.leaseReminders(channel: "push", owner: "b", limit: 10, now: start + 5, leaseSeconds: 10)
            #expect(taken.count == 2)
            _ = try await store.settleReminders(taken.map { ($0.reminder, .delivered) }, owner: "b", schedule: RetrySchedule(), now: start + 5)

            let summary = try await summaryOfA
            #expect(summary.retrying == 0, "none is this run's to retry: another run delivered both")
            #expect(summary.settledByOtherRuns == 2)
            #expect(summary.leftOpen == 0 && summary.heldByOtherRuns == 0)
        }
    }

    /// How many reminders were attempted and are now left to retry, under no run's lease.
    private func leftToRetry(_ store: any ReminderStore, now: Int64) async throws -> Int {
        let attempted = try await store.reminders(in: [.pending], limit: 10).filter { $0.attempts >= 1 }.map(\.id)
        return try await store.openReminders(ids: attempted, now: now).free.count
    }
}
