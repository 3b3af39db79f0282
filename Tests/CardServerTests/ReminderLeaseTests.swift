import HTTPTypes
import Membership
import MembershipSQL
import Reminders
import Synchronization
import Testing

/// A run's lease on a batch, as the sinks consult it before each delivery, on a real SQLite ledger.
@Suite("Reminder leases during delivery")
struct ReminderLeaseTests {
    @Test func aDeliveryStartsOnlyWhileTheLeaseOutlastsItRenewingItAndNeverOnceAnotherRunHasIt() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            for index in 1...2 {
                let member = try await client.createMember(index)
                let token = try await client.cardToken(member)
                #expect(try await client.activate(token: token).status == .created)
            }
            // Four weeks on, both one-month coverages end within the week.
            let start = harness.now + 28 * 86_400
            let store = harness.store
            #expect(try await store.recordDueReminders(channel: "push", now: start, batchSeconds: 3_600) == 2)
            let ids = try await store.leaseReminders(channel: "push", owner: "a", limit: 2, now: start, leaseSeconds: 10).map(\.reminder.id)
            let now = Mutex(start + 2)
            let lease = ReminderLease(
                store: store,
                owner: "a",
                ids: ids,
                validUntil: start + 10,
                leaseSeconds: 10,
                longestDeliverySeconds: 3,
                clock: WallClock { now.withLock { $0 } }
            )
            // Deliveries of up to 3 s, and (10 - 3) / 2 = 3 s to record them: room while now + 1 + 3 + 3 <= the lease's end.
            #expect(await lease.mayStart(ids[0]))
            let takenByB = try await store.leaseReminders(channel: "push", owner: "b", limit: 2, now: start + 10, leaseSeconds: 10)
            #expect(takenByB.count == 2, "no renewal while there was room: at its end the lease is another run's to take")
            // Run b holds both until start + 20: a may start nothing, even renewing.
            now.withLock { $0 = start + 11 }
            #expect(await lease.mayStart(ids[0]) == false)
            #expect(await lease.mayStart(ids[1]) == false)

            // A lease that runs short is renewed, for the whole batch, before the delivery starts.
            let other = try await store.leaseReminders(channel: "push", owner: "c", limit: 2, now: start + 20, leaseSeconds: 10).map(\.reminder.id)
            #expect(Set(other) == Set(ids))
            now.withLock { $0 = start + 25 }
            let renewing = ReminderLease(
                store: store,
                owner: "c",
                ids: other,
                validUntil: start + 30,
                leaseSeconds: 10,
                longestDeliverySeconds: 3,
                clock: WallClock { now.withLock { $0 } }
            )
            #expect(await renewing.mayStart(other[1]), "renewed to start + 35")
            let takenByD = try await store.leaseReminders(channel: "push", owner: "d", limit: 2, now: start + 32, leaseSeconds: 10)
            #expect(takenByD.isEmpty, "both reminders of the batch are still c's after the first lease would have ended")
        }
    }
}
