public import Foundation
public import Membership

/// Subscription periods: reading them, and the statements that write them.
extension SQLMembershipStore {
    public func periods(memberUUID: UUID) async throws -> [SubscriptionPeriod] {
        try await database.read { db in
            try await db.query(
                "SELECT \(PeriodRecord.select("periods")) FROM periods WHERE member_uuid = ? ORDER BY seq",
                [.text(memberUUID.uuidString)]
            ).map { try PeriodRecord.period($0) }
        }
    }

    public func period(id: UUID) async throws -> SubscriptionPeriod? {
        try await database.read { db in
            try await db.query("SELECT \(PeriodRecord.select("periods")) FROM periods WHERE id = ?", [.text(id.uuidString)]).first.map {
                try PeriodRecord.period($0)
            }
        }
    }

    public func activations(vendorID: UUID?, limit: Int) async throws -> [SubscriptionPeriod] {
        try await database.read { db in
            let filter = vendorID == nil ? "vendor_id IS NOT NULL" : "vendor_id = ?"
            let binds: [SQLValue] = (vendorID.map { [.text($0.uuidString)] } ?? []) + [.int(Int64(limit))]
            return try await db.query(
                "SELECT \(PeriodRecord.select("periods")) FROM periods WHERE \(filter) ORDER BY purchased_at DESC, seq DESC LIMIT ?",
                binds
            ).map { try PeriodRecord.period($0) }
        }
    }

    /// One update per period whose dates or cancellation changed between `old` and `new` (paired in order).
    static func periodChanges(from old: [SubscriptionPeriod], to new: [SubscriptionPeriod]) -> [SQLStatement] {
        zip(old, new).compactMap { before, after in
            guard before.startsAt != after.startsAt || before.endsAt != after.endsAt || before.cancelledAt != after.cancelledAt else { return nil }
            return SQLStatement(
                "UPDATE periods SET starts_at = ?, ends_at = ?, cancelled_at = ? WHERE id = ?",
                [.int(after.startsAt), .int(after.endsAt), after.cancelledAt.map(SQLValue.int) ?? .null, .text(after.id.uuidString)]
            )
        }
    }
}
