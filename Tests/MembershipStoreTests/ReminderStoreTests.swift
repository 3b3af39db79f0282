import Foundation
import Membership
import Testing

@testable import MembershipSQL

/// Reminders in the store, on every real database: selection, leases, outcomes, requeue.
@Suite("Reminders in the store")
struct ReminderStoreTests {
    /// A member who bought `months` on `now`, and their coverage end.
    static func member(_ index: Int, in store: SQLMembershipStore, vendor: Vendor, months: Int = 1, now: Int64) async throws -> (Member, Int64) {
        let member = try await store.createMember(Sample.draft(index), now: now).member
        return (member, try await activate(store, member: member, vendor: vendor, months: months, now: now).coverageEnd)
    }

    /// `count` members whose coverage ends together, each with the 1-day reminder recorded; the time it was due.
    static func dueReminders(_ count: Int, in store: SQLMembershipStore) async throws -> Int64 {
        let vendor = try await store.createVendor(name: "V", category: "boucherie", neighbourhood: "usto", now: 1)
        var end: Int64 = 0
        for index in 1...count { end = try await member(index, in: store, vendor: vendor, now: Sample.january31).1 }
        let now = end - 86_400 / 2
        #expect(try await store.recordDueReminders(channel: "push", now: now, batchSeconds: 3_600) == count)
        return now
    }

    @Test(arguments: StoreKind.available)
    func eachThresholdIsRecordedOnceAndOnlyTheMostUrgentOne(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let vendor = try await store.createVendor(name: "V", category: "boucherie", neighbourhood: "usto", now: 1)
            let (member, end) = try await Self.member(1, in: store, vendor: vendor, now: Sample.january31)
            #expect(try await store.recordDueReminders(channel: "push", now: end - 8 * 86_400, batchSeconds: 3_600) == 0, "8 days before: none")
            #expect(try await store.recordDueReminders(channel: "push", now: end - 6 * 86_400, batchSeconds: 3_600) == 1)
            #expect(try await store.recordDueReminders(channel: "push", now: end - 5 * 86_400, batchSeconds: 3_600) == 0, "the 7-day reminder once")
            // Not run for a while: two days before the end only the 3-day reminder is due, never the 7-day one again.
            #expect(try await store.recordDueReminders(channel: "push", now: end - 2 * 86_400, batchSeconds: 7_200) == 1)
            #expect(try await store.recordDueReminders(channel: "push", now: end - 3_600, batchSeconds: 3_600) == 1)
            #expect(try await store.recordDueReminders(channel: "push", now: end + 3_600, batchSeconds: 3_600) == 1)
            #expect(
                try await store.recordDueReminders(channel: "push", now: end + 3 * 86_400, batchSeconds: 3_600) == 0,
                "lapsed for days: not told again"
            )
            #expect(try await store.recordDueReminders(channel: "email", now: end + 3_600, batchSeconds: 3_600) == 1, "another channel has its own")
            let open = try await store.reminders(in: [.pending], limit: 10)
            #expect(Set(open.filter { $0.channel == "push" }.map(\.threshold)) == [.sevenDays, .threeDays, .oneDay, .ended])
            #expect(open.allSatisfy { $0.id == Reminder.id(memberUUID: member.uuid, coverageEnd: end, threshold: $0.threshold, channel: $0.channel) })
        }
    }

    @Test(arguments: StoreKind.available)
    func aRenewalSupersedesAndACancellationBringsTheRemindersForTheNewEnd(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let vendor = try await store.createVendor(name: "V", category: "boucherie", neighbourhood: "usto", now: 1)
            let (member, end) = try await Self.member(1, in: store, vendor: vendor, now: Sample.january31)
            let now = end - 2 * 86_400
            #expect(try await store.recordDueReminders(channel: "push", now: now, batchSeconds: 3_600) == 1)
            // The member renews after the selection and before the delivery.
            let renewed = try await activate(store, member: member, vendor: vendor, months: 1, now: now)
            let leased = try await store.leaseReminders(channel: "push", owner: "a", limit: 10, now: now, leaseSeconds: 60)
            #expect(leased.count == 1 && leased[0].isSuperseded && leased[0].currentCoverageEnd == renewed.coverageEnd)
            #expect(
                try await store.settleReminders([(leased[0].reminder, .superseded)], owner: "a", schedule: RetrySchedule(), now: now) == [.superseded]
            )
            // An admin cancels the renewal: the coverage end moves back, and the next selection reminds for it.
            _ = try await store.cancelPeriod(id: renewed.period.id, now: now + 60)
            let again = try await store.recordDueReminders(channel: "push", now: now + 120, batchSeconds: 3_600)
            #expect(again == 0, "the 3-day reminder for the old end exists (superseded), so the same key is not made twice")
            let later = try await store.recordDueReminders(channel: "push", now: end - 3_600, batchSeconds: 3_600)
            #expect(later == 1, "the 1-day reminder for the end the cancellation restored")
            let fresh = try await store.leaseReminders(channel: "push", owner: "a", limit: 10, now: end - 3_600, leaseSeconds: 60)
            #expect(fresh.count == 1 && !fresh[0].isSuperseded && fresh[0].reminder.threshold == .oneDay && fresh[0].reminder.coverageEnd == end)
        }
    }

    @Test(arguments: StoreKind.available)
    func workersLeasingAtOnceNeverShareAReminderAndOnlyTheHolderSettlesIt(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let now = try await Self.dueReminders(60, in: store)
            let leases = try await withThrowingTaskGroup(of: (String, [String]).self) { group in
                for worker in 0..<6 {
                    group.addTask {
                        var mine: [String] = []
                        while true {
                            let batch = try await store.leaseReminders(channel: "push", owner: "w\(worker)", limit: 4, now: now, leaseSeconds: 60)
                            if batch.isEmpty { return ("w\(worker)", mine) }
                            mine += batch.map(\.reminder.id)
                        }
                    }
                }
                return try await group.reduce(into: [String: [String]]()) { $0[$1.0] = $1.1 }
            }
            let all = leases.values.flatMap { $0 }
            #expect(all.count == 60 && Set(all).count == 60, "every reminder leased once")
            let (holder, first) = try #require(leases.first { !$0.value.isEmpty }.map { ($0.key, $0.value[0]) })
            let reminder = try #require(try await store.reminders(in: [.pending], limit: 100).first { $0.id == first })
            _ = try await store.settleReminders([(reminder, .delivered)], owner: holder == "w0" ? "w1" : "w0", schedule: RetrySchedule(), now: now)
            #expect(try await store.reminderCounts(channel: "push")[.delivered] == nil, "a worker that does not hold the lease settles nothing")
            _ = try await store.settleReminders([(reminder, .delivered)], owner: holder, schedule: RetrySchedule(), now: now)
            #expect(try await store.reminderCounts(channel: "push")[.delivered] == 1)
            #expect(
                try await store.leaseReminders(channel: "push", owner: "late", limit: 100, now: now + 61, leaseSeconds: 60).count == 59,
                "leases that ended are taken again, delivered ones never"
            )
        }
    }

    @Test(arguments: StoreKind.available)
    func aLeaseIsRenewedOnlyByTheRunThatStillHoldsIt(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let now = try await Self.dueReminders(3, in: store)
            let ids = try await store.leaseReminders(channel: "push", owner: "a", limit: 3, now: now, leaseSeconds: 10).map(\.reminder.id)
            #expect(try await store.renewReminderLeases(ids: ids, owner: "b", now: now + 5, leaseSeconds: 10).isEmpty, "not b's lease")
            #expect(try await store.renewReminderLeases(ids: ids, owner: "a", now: now + 5, leaseSeconds: 10) == Set(ids))
            #expect(
                try await store.leaseReminders(channel: "push", owner: "b", limit: 3, now: now + 12, leaseSeconds: 10).isEmpty,
                "renewed until now + 15: nobody else may take them at now + 12"
            )
            // The lease lapses and b takes one; a settles another: a keeps only the third.
            let taken = try await store.leaseReminders(channel: "push", owner: "b", limit: 1, now: now + 16, leaseSeconds: 10)
            let settled = try #require(try await store.reminders(in: [.pending], limit: 10).first { !taken.map(\.reminder.id).contains($0.id) })
            _ = try await store.settleReminders([(settled, .delivered)], owner: "a", schedule: RetrySchedule(), now: now + 16)
            let kept = try await store.renewReminderLeases(ids: ids, owner: "a", now: now + 17, leaseSeconds: 10)
            #expect(
                kept == Set(ids).subtracting([taken[0].reminder.id, settled.id]),
                "a lapsed lease another run took, or a settled reminder, is not renewed"
            )
        }
    }

    @Test(arguments: StoreKind.available)
    func retriesFollowTheScheduleUntilExhaustedAndRequeueOpensThemAgain(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let vendor = try await store.createVendor(name: "V", category: "boucherie", neighbourhood: "usto", now: 1)
            let (_, end) = try await Self.member(1, in: store, vendor: vendor, now: Sample.january31)
            var now = end - 86_400 / 2
            _ = try await store.recordDueReminders(channel: "push", now: now, batchSeconds: 3_600)
            let schedule = RetrySchedule(delays: [0, 10, 100], maxAttempts: 3)
            var states: [Reminder.State] = []
            for attempt in 1...3 {
                let leased = try await store.leaseReminders(channel: "push", owner: "a", limit: 1, now: now, leaseSeconds: 60)
                #expect(leased.count == 1 && leased[0].reminder.attempts == attempt)
                states += try await store.settleReminders(
                    [(leased[0].reminder, .retry("503", sent: attempt == 2, retryAfter: nil))],
                    owner: "a",
                    schedule: schedule,
                    now: now
                )
                now += 1_000
            }
            #expect(states == [.pending, .unknown, .exhausted])
            let failedOne = try await store.reminders(in: [.exhausted], limit: 1)
            #expect(failedOne.first?.lastError == "503")
            #expect(try await store.requeueReminders(states: [.exhausted], created: nil, ids: [], now: now) == 1)
            #expect(try await store.leaseReminders(channel: "push", owner: "a", limit: 1, now: now, leaseSeconds: 60).first?.reminder.attempts == 1)
        }
    }
}
