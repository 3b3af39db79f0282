import CardServices
import Foundation
import Membership
import TestSupport
import Testing

@testable import MembershipSQL
@testable import MembershipSQLite

/// Cards kept in memory: never one read across a change, never any while changes go unheard.
@Suite("Card cache")
struct CardCacheTests {
    static func card(_ member: UUID, issuedAt: Int64 = 1) -> StoredCard {
        StoredCard(memberUUID: member, tokenID: "00", token: "PEEZ1:X", png: [1], issuedAt: issuedAt, expiresAt: 2, coverageEnd: nil)
    }

    @Test func keepsNothingUntilListening() {
        let cache = CardCache()
        let member = UUID()
        cache.keep(Self.card(member), readAfter: cache.ticket())
        #expect(cache.card(for: member) == nil)
        cache.apply(.listening)
        cache.keep(Self.card(member), readAfter: cache.ticket())
        #expect(cache.card(for: member) == Self.card(member))
    }

    @Test func aCardReadWhileAChangeWasHeardIsNotKept() {
        let cache = CardCache()
        cache.apply(.listening)
        let member = UUID()
        let ticket = cache.ticket()
        cache.apply(.changed(UUID()))  // any member: the read may have seen the old ledger
        cache.keep(Self.card(member), readAfter: ticket)
        #expect(cache.card(for: member) == nil)
    }

    @Test func aChangeOrAnInterruptionDropsKeptCards() {
        let cache = CardCache()
        cache.apply(.listening)
        let (first, second) = (UUID(), UUID())
        cache.keep(Self.card(first), readAfter: cache.ticket())
        cache.keep(Self.card(second), readAfter: cache.ticket())
        cache.apply(.changed(first))
        #expect(cache.card(for: first) == nil && cache.card(for: second) != nil)
        cache.apply(.interrupted)
        #expect(cache.card(for: second) == nil)
        cache.apply(.listening)
        #expect(cache.count == 0, "changes made while not listening were not heard")
    }

    @Test func keepsAtMostItsCapacity() {
        let cache = CardCache(capacity: 3)
        cache.apply(.listening)
        for _ in 0..<10 { cache.keep(Self.card(UUID()), readAfter: cache.ticket()) }
        #expect(cache.count == 3)
    }

    @Test func aFeedTellsANewSubscriberThatItIsListening() {
        let feed = MemberChangeFeed()
        let cache = CardCache()
        feed.publish(.listening)
        feed.subscribe { cache.apply($0) }
        let member = UUID()
        cache.keep(Self.card(member), readAfter: cache.ticket())
        #expect(cache.card(for: member) != nil && feed.isListening)
    }
}

/// Two service instances on one database (on SQLite: a service and another process on one file): a change made
/// through one reaches the other's memory.
@Suite("Card cache across instances")
struct SharedDatabaseCardTests {
    @Test(arguments: StoreKind.available)
    func aSaleThroughOneInstanceReplacesTheCardTheOtherKeeps(_ kind: StoreKind) async throws {
        try await kind.withInstances(2) { stores in
            let (a, b) = (stores[0], stores[1])
            try await Self.waitUntil { b.database.memberChanges?.isListening == true && a.database.memberChanges?.isListening == true }
            let (vendor, member) = try await Sample.vendorAndMember(in: a)
            let before = try await SaleDesk(store: b).currentCard(member, now: 2_000)
            #expect(try await b.card(memberUUID: member.uuid) == before)
            #expect(b.cardCache?.count == 1, "the second read was served from memory")

            let sale = try await activate(a, member: member, vendor: vendor, months: 1, now: 3_000)
            try await Self.waitUntil { try await b.card(memberUUID: member.uuid) == sale.card }
            #expect(try await a.card(memberUUID: member.uuid) == sale.card, "the selling instance reads its own write at once")
        }
    }

    @Test(arguments: StoreKind.available)
    func aCardSignedFromAHeadACancellationOvertookIsNeverServedFromMemory(_ kind: StoreKind) async throws {
        try await kind.withInstances(2) { stores in
            let (a, b) = (stores[0], stores[1])
            try await Self.waitUntil { b.database.memberChanges?.isListening == true }
            let (vendor, member) = try await Sample.vendorAndMember(in: a)
            let sale = try await activate(a, member: member, vendor: vendor, months: 1, now: 2_000)
            // b reads the head to sign from; a cancels the sale (forgetting the stored card) before b keeps its
            // card, and b hears of it first. b's card, signed for the cancelled coverage, must not be served.
            let basis = try #require(try await b.cardBasis(memberUUID: member.uuid))
            let generation = b.cardCache?.ticket().generation
            _ = try await a.cancelPeriod(id: sale.period.id, now: 3_000)
            try await Self.waitUntil { b.cardCache?.ticket().generation != generation }
            let stale = try SaleDesk(store: b).cards.sign(from: basis.head, coverageEnd: basis.head.coverageEnd, now: 2_500)
            await #expect(throws: LedgerVersionConflict.self, "a card signed from a state the member has left is not kept") {
                try await b.keepCard(stale, signedFrom: basis)
            }
            #expect(try await b.card(memberUUID: member.uuid) == nil, "no current card: the next read signs one for what the ledger says now")
        }
    }

    @Test func aBulkLoadByAnotherProcessIsHeardToItsLastChange() async throws {
        try await StoreKind.sqlite.withInstances(2) { stores in
            let (a, b) = (stores[0], stores[1])
            try await Self.waitUntil { b.database.memberChanges?.isListening == true }
            let (_, first) = try await Sample.vendorAndMember(in: a)
            let last = try await a.createMember(Sample.draft(2), now: 1_000).member
            for member in [first, last] { _ = try await SaleDesk(store: b).currentCard(member, now: 2_000) }
            #expect(b.cardCache?.count == 2)
            // More changes in one commit than the watch reads at a time; the last member's comes last.
            try await a.database.writeBatch([
                SQLStatement(
                    """
                    WITH RECURSIVE n(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM n WHERE v < ?)
                    INSERT INTO member_changes (member_uuid, version, kind, changed_at) SELECT ?, 100 + v, 'profile', 3000 FROM n
                    """,
                    [.int(Int64(SQLiteChangeWatch.chunk) * 2), .text(first.uuid.uuidString)]
                ),
                SQLStatement(
                    "INSERT INTO member_changes (member_uuid, version, kind, changed_at) VALUES (?, 100, 'profile', 3000)",
                    [.text(last.uuid.uuidString)]
                ),
            ])
            try await Self.waitUntil { b.cardCache?.card(for: last.uuid) == nil }
            #expect(b.cardCache?.card(for: first.uuid) == nil)
        }
    }

    @Test func whileTheWatchIsStoppedCardsAreReadFromTheFile() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let a = try await SQLMembershipStore(database: try await SQLiteDatabase.open(path: folder.file("ledger.sqlite")), now: Sample.migratedAt)
        let served = try await SQLiteDatabase.open(path: folder.file("ledger.sqlite"))
        let b = SQLMembershipStore(opening: served)
        let feed = try #require(served.memberChanges)
        let watch = Task { await served.run() }
        try await Self.waitUntil { feed.isListening }
        let (vendor, member) = try await Sample.vendorAndMember(in: a)
        _ = try await SaleDesk(store: b).currentCard(member, now: 2_000)
        #expect(b.cardCache?.count == 1)

        watch.cancel()
        await watch.value
        #expect(!feed.isListening && b.cardCache?.count == 0, "a store whose file is not watched keeps no card")
        let sale = try await activate(a, member: member, vendor: vendor, months: 1, now: 3_000)
        #expect(try await b.card(memberUUID: member.uuid) == sale.card, "read from the file, where a's sale is")
        #expect(b.cardCache?.count == 0)
    }

    @Test(.enabled(if: StoreKind.available.contains(.postgres)))
    func whileTheListenerIsDownCardsAreReadFromTheDatabase() async throws {
        try await StoreKind.withPostgresInstances(2) { stores in
            let (a, b) = (stores[0], stores[1])
            let feed = try #require(b.database.memberChanges)
            try await Self.waitUntil { feed.isListening }
            let (vendor, member) = try await Sample.vendorAndMember(in: a)
            _ = try await SaleDesk(store: b).currentCard(member, now: 2_000)

            _ = try await a.database.writeStatement(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND datname = current_database()",
                []
            )
            try await Self.waitUntil { !feed.isListening }
            #expect(b.cardCache?.count == 0)
            let sale = try await activate(a, member: member, vendor: vendor, months: 1, now: 3_000)
            #expect(try await b.card(memberUUID: member.uuid) == sale.card, "no notification reached b, and b did not need one")

            try await Self.waitUntil { feed.isListening }  // it reconnects by itself
            _ = try await b.card(memberUUID: member.uuid)
            #expect(b.cardCache?.count == 1)
        }
    }

    /// Polls `condition` every 10 ms for up to 10 s.
    static func waitUntil(_ condition: () async throws -> Bool) async throws {
        for _ in 0..<1_000 {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("the condition did not become true within 10 s")
    }
}
