import Foundation
import Membership

/// The `periods` table: its columns in one place, and a period read from a row.
enum PeriodRecord {
    static let table = "periods"
    static let columns = ["id", "member_uuid", "months", "amount_dzd", "source", "vendor_id", "purchased_at", "starts_at", "ends_at", "cancelled_at"]

    /// The columns of `periods` under the alias `alias`, each named `prefix` + its own name.
    static func select(_ alias: String, prefix: String = "") -> String {
        columns.map { "\(alias).\($0) AS \(prefix)\($0)" }.joined(separator: ", ")
    }

    /// A period's values, in the order of ``columns``.
    static func values(_ period: SubscriptionPeriod) -> [SQLValue] {
        [
            .text(period.id.uuidString), .text(period.memberUUID.uuidString), .int(Int64(period.months)), .int(Int64(period.amountDZD)),
            .text(period.source.rawValue), period.vendorID.map { .text($0.uuidString) } ?? .null, .int(period.purchasedAt),
            .int(period.startsAt), .int(period.endsAt), period.cancelledAt.map(SQLValue.int) ?? .null,
        ]
    }

    /// Inserts `period` as its member's `seq`-th, renewing the paid time that ended at `renewsEnd` (nil: none).
    static func insert(_ period: SubscriptionPeriod, seq: Int64, renewsEnd: Int64?) -> SQLStatement {
        SQLStatement.insert(
            into: table,
            columns: columns + ["seq", "renews_end"],
            values(period) + [.int(seq), renewsEnd.map(SQLValue.int) ?? .null]
        )
    }

    static func period(_ row: SQLRow, prefix: String = "") throws -> SubscriptionPeriod {
        let read = RowReader(row: row, table: table, prefix: prefix)
        return SubscriptionPeriod(
            id: try read.uuid("id"),
            memberUUID: try read.uuid("member_uuid"),
            months: Int(try read.int("months")),
            amountDZD: Int(try read.int("amount_dzd")),
            source: try read.value("source", as: SubscriptionPeriod.Source.self),
            vendorID: try read.optionalUUID("vendor_id"),
            purchasedAt: try read.int("purchased_at"),
            startsAt: try read.int("starts_at"),
            endsAt: try read.int("ends_at"),
            cancelledAt: try read.optionalInt("cancelled_at")
        )
    }
}
