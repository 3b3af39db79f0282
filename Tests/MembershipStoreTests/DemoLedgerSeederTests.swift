import Foundation
import LedgerSeeding
import Membership
import Testing

@testable import MembershipSQL

/// `peez dev seed`'s generator, on every real database: whole ledgers, a realistic share due each day.
@Suite("Demo ledger seeder")
struct DemoLedgerSeederTests {
    static let now: Int64 = 1_797_750_000

    @Test(arguments: StoreKind.available)
    func seededMembersHaveConsistentLedgersAndAboutFivePercentAreDueInADaysWindow(kind: StoreKind) async throws {
        try await kind.withStore { store in
            var seeder = DemoLedgerSeeder(store: store)
            seeder.membersPerTransaction = 1_500
            seeder.membersPerChunk = 400
            try await seeder.seed(members: 3_000, now: Self.now)
            // A second seeding continues the day sequences: no membership id collides.
            try await seeder.seed(members: 2_000, now: Self.now)
            let counts = try await store.database.read { db in
                try await db.query(
                    """
                    SELECT (SELECT COUNT(*) FROM members) AS members, (SELECT COUNT(*) FROM periods) AS periods,
                           (SELECT COUNT(*) FROM members WHERE language = 'ar') AS arabic,
                           (SELECT COUNT(*) FROM members m WHERE m.coverage_end <> (SELECT MAX(ends_at) FROM periods p WHERE p.member_uuid = m.uuid)
                                OR m.last_period_seq <> (SELECT COUNT(*) FROM periods p WHERE p.member_uuid = m.uuid)) AS inconsistent,
                           (SELECT COUNT(*) FROM periods p JOIN periods q ON q.member_uuid = p.member_uuid AND q.seq = p.seq + 1
                            WHERE q.starts_at <> p.ends_at) AS gaps
                    """,
                    []
                )
            }.first!
            #expect(try counts.int("members") == 5_000)
            #expect(try (5_000...15_000).contains(counts.int("periods")), "one to three periods each")
            #expect(try counts.int("arabic") == 1_000, "a fifth in Arabic")
            #expect(try counts.int("inconsistent") == 0, "each coverage end is its last period's end")
            #expect(try counts.int("gaps") == 0, "periods lie back to back")
            let sample = try await store.database.read { db in try await db.query("SELECT uuid, membership_id FROM members LIMIT 1", []) }.first!
            let member = try await store.member(uuid: #require(UUID(uuidString: sample.text("uuid"))))
            #expect(try member?.membershipID == sample.text("membership_id"))
            #expect(try sample.text("membership_id").wholeMatch(of: /PEEZ-\d{8}-\d{5}/) != nil)
            // Due now: coverage ends from two days ago to seven days ahead, 9 of 180 days (5 %).
            let due = try await store.recordDueReminders(channel: "push", now: Self.now, batchSeconds: 3_600)
            #expect((175...325).contains(due), "\(due) of 5,000 due")
        }
    }

    @Test(arguments: StoreKind.available)
    func seededSalesAtShopsAreInTheShopsAccounts(kind: StoreKind) async throws {
        try await kind.withStore { store in
            var seeder = DemoLedgerSeeder(store: store)
            seeder.membersPerTransaction = 1_000
            seeder.membersPerChunk = 500
            try await seeder.addShops(5, now: Self.now - 400 * 86_400)
            try await seeder.seed(members: 1_000, now: Self.now)
            let fromLedger = try await store.shopDaysFromLedger()
            #expect(Set(fromLedger.keys) == Set(seeder.shops))
            for shop in seeder.shops {
                #expect(try await store.shopDays(of: shop, from: 0, to: 1_000_000) == fromLedger[shop])
            }
        }
    }
}
