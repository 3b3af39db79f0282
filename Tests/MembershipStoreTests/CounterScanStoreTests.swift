import Foundation
import Membership
import Testing

@testable import MembershipSQL

/// Scans reported by counters, on every real database.
@Suite("Counter scans in the store")
struct CounterScanStoreTests {
    static func scan(
        _ counter: UUID,
        _ seq: Int64,
        at: Int64,
        card: String? = "00000000000000a1",
        member: String? = "PEEZ-20251103-00001"
    ) -> CounterScan {
        CounterScan(
            counterID: counter,
            seq: seq,
            scannedAt: at,
            verdict: card == nil ? "malformed" : "valid",
            membershipID: member,
            tokenID: card,
            offline: true,
            trustAge: 60
        )
    }

    /// A second shop, beside `Sample.vendorAndMember`'s.
    static func baker(in store: SQLMembershipStore) async throws -> Vendor {
        try await store.createVendor(name: "Boulangerie El Bahia", category: "boulangerie-patisserie", neighbourhood: "gambetta", now: 1)
    }

    @Test(arguments: StoreKind.available)
    func aReportSentAgainStoresNothingTwiceAndTwoTillsNeverCollide(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (vendor, _) = try await Sample.vendorAndMember(in: store)
            let till = UUID()
            let otherTill = UUID()
            let report = (1...3).map { Self.scan(till, Int64($0), at: 1_800_000_000 + Int64($0)) }
            #expect(try await store.recordScans(report, vendorID: vendor.id, now: 1_800_000_100) == 3)
            #expect(try await store.recordScans(report + [Self.scan(till, 4, at: 1_800_000_004)], vendorID: vendor.id, now: 1_800_000_200) == 1)
            #expect(try await store.recordScans([Self.scan(otherTill, 1, at: 1_800_000_005)], vendorID: vendor.id, now: 1_800_000_200) == 1)
            let scans = try await store.reportedScans(membershipID: "PEEZ-20251103-00001", tokenID: nil, limit: 100)
            #expect(scans.map(\.scan.scannedAt) == [1_800_000_005, 1_800_000_004, 1_800_000_003, 1_800_000_002, 1_800_000_001], "newest first")
            #expect(scans.first?.vendorName == vendor.name && scans.first?.scan.counterID == otherTill)
            #expect(scans.last?.receivedAt == 1_800_000_100, "the first report's time is kept")
            #expect(try await store.reportedScans(membershipID: nil, tokenID: "00000000000000ff", limit: 100).isEmpty)
            #expect(try await store.reportedScans(membershipID: nil, tokenID: nil, limit: 2).count == 2)
        }
    }

    /// A scan time no clock reads (stored before scan times were bounded where they enter) beside another shop's
    /// scan of the same card: the report's arithmetic cannot overflow (PostgreSQL answered `bigint out of range`).
    @Test(arguments: StoreKind.available)
    func aScanAtTheEndOfTimeBreaksNoReport(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (butcher, _) = try await Sample.vendorAndMember(in: store)
            let baker = try await Self.baker(in: store)
            _ = try await store.recordScans([Self.scan(UUID(), 1, at: Int64.max)], vendorID: butcher.id, now: 1_800_000_000)
            _ = try await store.recordScans(
                [Self.scan(UUID(), 1, at: 1_800_000_000), Self.scan(UUID(), 2, at: 0)],
                vendorID: baker.id,
                now: 1_800_000_000
            )
            #expect(try await store.sharedCards(within: 600, since: 0, limit: 100).isEmpty)
            #expect(try await store.sharedCards(within: 86_400, since: 1_700_000_000, limit: 100).isEmpty)
        }
    }

    @Test(arguments: StoreKind.available)
    func aCardRefusedAtBothShopsIsNoSharedCard(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (butcher, _) = try await Sample.vendorAndMember(in: store)
            let baker = try await Self.baker(in: store)
            let t: Int64 = 1_800_000_000
            func refused(_ seq: Int64, at time: Int64, _ verdict: String) -> CounterScan {
                var scan = Self.scan(UUID(), seq, at: time, card: "00000000000000d4", member: "PEEZ-20251103-00004")
                scan.verdict = verdict
                return scan
            }
            // Refused at the butcher, refused at the baker a minute later: no discount was given, nothing shared.
            _ = try await store.recordScans([refused(1, at: t, "revoked")], vendorID: butcher.id, now: t + 100)
            _ = try await store.recordScans([refused(1, at: t + 60, "expired")], vendorID: baker.id, now: t + 100)
            #expect(try await store.sharedCards(within: 600, since: 0, limit: 100).isEmpty)
            // Accepted at both: shared.
            _ = try await store.recordScans([Self.scan(UUID(), 1, at: t)], vendorID: butcher.id, now: t + 100)
            _ = try await store.recordScans([Self.scan(UUID(), 1, at: t + 60)], vendorID: baker.id, now: t + 100)
            #expect(try await store.sharedCards(within: 600, since: 0, limit: 100).count == 1)
        }
    }

    @Test(arguments: StoreKind.available)
    func aCardSeenAtTwoShopsWithinTheWindowIsListedOnceWithItsClosestPair(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (butcher, _) = try await Sample.vendorAndMember(in: store)
            let baker = try await Self.baker(in: store)
            let (butcherTill, bakerTill) = (UUID(), UUID())
            let t: Int64 = 1_800_000_000
            // The shared card: at the butcher at t and t+1000, at the baker at t+1180 (180 s after the second).
            _ = try await store.recordScans(
                [
                    Self.scan(butcherTill, 1, at: t), Self.scan(butcherTill, 2, at: t + 1_000),
                    // Another card seen at one shop only, twice: not shared.
                    Self.scan(butcherTill, 3, at: t + 1_010, card: "00000000000000b2", member: "PEEZ-20251103-00002"),
                    Self.scan(butcherTill, 4, at: t + 1_020, card: "00000000000000b2", member: "PEEZ-20251103-00002"),
                    // A card seen at both shops, but an hour apart: not within ten minutes.
                    Self.scan(butcherTill, 5, at: t, card: "00000000000000c3", member: "PEEZ-20251103-00003"),
                    // Unreadable scans name no card.
                    Self.scan(butcherTill, 6, at: t + 1_100, card: nil, member: nil),
                ],
                vendorID: butcher.id,
                now: t + 2_000
            )
            _ = try await store.recordScans(
                [
                    Self.scan(bakerTill, 1, at: t + 1_180),
                    Self.scan(bakerTill, 2, at: t + 3_600, card: "00000000000000c3", member: "PEEZ-20251103-00003"),
                    Self.scan(bakerTill, 3, at: t + 1_150, card: nil, member: nil),
                ],
                vendorID: baker.id,
                now: t + 4_000
            )
            let shared = try await store.sharedCards(within: 600, since: t - 86_400, limit: 100)
            #expect(shared.count == 1)
            #expect(shared.first?.earlier.scan.tokenID == "00000000000000a1" && shared.first?.secondsApart == 180)
            #expect(shared.first?.earlier.vendorID == butcher.id && shared.first?.later.vendorName == "Boulangerie El Bahia")
            #expect(try await store.sharedCards(within: 3_600, since: t - 86_400, limit: 100).count == 2, "an hour's window catches the other card")
            #expect(try await store.sharedCards(within: 600, since: t + 2_000, limit: 100).isEmpty, "scans before since are left out")
        }
    }
}
