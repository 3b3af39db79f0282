public import Foundation
import Membership
public import MembershipSQL
import PeezBasics

/// Fills a ledger with counters' scan reports for load tests and benchmarks: `count` valid scans of the
/// seeded members' cards over the last `days` days, at the given shops (one counter each), a card's token id
/// fixed per member; one scan in a thousand is followed minutes later by the same card at another shop (a shared
/// card, as the anomaly report finds them). Rows go in many at a time, in large transactions; the console's
/// summaries are rebuilt after.
public struct ScanSeeder: Sendable {
    public var store: SQLMembershipStore
    public var days: Int64 = 90
    public var scansPerTransaction = 200_000

    public init(store: SQLMembershipStore) {
        self.store = store
    }

    static let columns = [
        "vendor_id", "counter_id", "seq", "scanned_at", "verdict", "membership_id", "token_id", "offline", "trust_age", "received_at",
    ]

    /// Adds `count` scans at `shops` (at least two) ending at `now`; `progress` hears how many are in.
    public func seed(scans count: Int, shops: [UUID], now: Int64, progress: @Sendable (Int) -> Void = { _ in }) async throws {
        precondition(shops.count >= 2, "scans need two shops at least")
        let members = try await store.database.read { db in
            try await db.query("SELECT membership_id FROM members ORDER BY membership_id LIMIT 200000", []).map { try $0.text("membership_id") }
        }
        guard !members.isEmpty else { return }
        let counters = shops.map { _ in UUID().uuidString }
        var sequences = Array(repeating: Int64(0), count: shops.count)
        var generator = SplitMix64(seed: UInt64(bitPattern: now))
        var done = 0
        while done < count {
            var rows: [[SQLValue]] = []
            rows.reserveCapacity(scansPerTransaction + 1_000)
            while rows.count < scansPerTransaction, done + rows.count < count {
                let shop = Int(generator.next() % UInt64(shops.count))
                let member = members[Int(generator.next() % UInt64(members.count))]
                let at = now - Int64(generator.next() % UInt64(days * 86_400))
                func scan(_ shop: Int, _ at: Int64) -> [SQLValue] {
                    sequences[shop] += 1
                    return [
                        .text(shops[shop].uuidString), .text(counters[shop]), .int(sequences[shop]), .int(at), .text("valid"), .text(member),
                        .text(Self.tokenID(member)), .int(1), .int(Int64(generator.next() % 86_400)), .int(at + 60),
                    ]
                }
                rows.append(scan(shop, at))
                if generator.next() % 1_000 == 0 { rows.append(scan((shop + 1) % shops.count, at + 120 + Int64(generator.next() % 300))) }
            }
            let batch = rows
            try await store.database.write { db in try await db.insertRows(into: "counter_scans", columns: Self.columns, batch) }
            done += batch.count
            progress(done)
        }
        // The console's cards seen at two shops, found from the scans as they stand.
        try await store.rebuildConsoleSummaries()
    }

    /// A member's card's token id: 16 hex digits fixed by the membership id.
    static func tokenID(_ membershipID: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in membershipID.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
