import Foundation
import Membership
import PeezBasics

/// The shops' cash accounts as rows (migration 026): `shop_entries`, append-only; `shop_days`, each shop's
/// figures per Algiers day; `shop_day_changes`, the figures each entry's transaction appends, folded into
/// `shop_days` now and then as the console's summaries are (a shop's sales never wait for one row), and into
/// `shop_stretches`, the same figures per ``stretchDays`` days. Readers sum the folded rows and the appended
/// changes in one statement, so every balance is exact at once.
enum ShopAccountRows {
    static let entryColumns = """
        seq, vendor_id, kind, recorded_at, day, amount_dzd, commission_dzd, months, period_id, member_uuid, method, reference,
        received_by, reason, reverses_seq, recorded_by
        """
    static let figureColumns = "sales, sales_dzd, cancellations, cancellations_dzd, commission_dzd, remitted_dzd, adjusted_dzd"

    /// The days a row of `shop_stretches` sums: stretch `n` is the days `32 n` to `32 n + 31`.
    static let stretchDays: Int64 = 32

    /// An entry's figures on its day, as columns of a select over `shop_entries`.
    static let figuresOfEntry = """
        CASE kind WHEN 'sale' THEN 1 ELSE 0 END AS sales, CASE kind WHEN 'sale' THEN amount_dzd ELSE 0 END AS sales_dzd,
        CASE kind WHEN 'cancellation' THEN 1 ELSE 0 END AS cancellations,
        CASE kind WHEN 'cancellation' THEN -amount_dzd ELSE 0 END AS cancellations_dzd, commission_dzd,
        CASE kind WHEN 'remittance' THEN -amount_dzd ELSE 0 END AS remitted_dzd,
        CASE WHEN kind IN ('adjustment', 'reversal') THEN amount_dzd ELSE 0 END AS adjusted_dzd
        """

    /// Appends the figures of the entries `condition` selects to their days.
    static func appendFigures(where condition: String, _ binds: [SQLValue]) -> SQLStatement {
        SQLStatement(
            """
            INSERT INTO shop_day_changes (vendor_id, day, \(figureColumns))
            SELECT vendor_id, day, \(figuresOfEntry) FROM shop_entries WHERE \(condition)
            """,
            binds
        )
    }

    /// The commission the shop's commission of `day` gives a sale of `months` for `amount` (0 without one), as
    /// ``ShopCommission/commission(amountDZD:months:)`` computes it; each argument an SQL expression.
    static func commissionSQL(months: String, amount: String, vendor: String, day: String) -> String {
        """
        COALESCE((SELECT CASE WHEN c.per_month_dzd > 0
                THEN (CASE WHEN c.per_month_dzd * \(months) < \(amount) THEN c.per_month_dzd * \(months) ELSE \(amount) END)
                ELSE (\(amount) * c.basis_points + 5000) / 10000 END
            FROM shop_commissions c WHERE c.vendor_id = \(vendor) AND c.from_day <= \(day) ORDER BY c.from_day DESC LIMIT 1), 0)
        """
    }

    /// A sale's entry and its day's figures, for a sale at a shop (none for one paid in the app). Neither statement
    /// reads what the other writes: PostgreSQL runs a sale's batch as one statement, whose parts share a snapshot.
    static func sale(_ period: SubscriptionPeriod) -> [SQLStatement] {
        guard period.source == .vendor, let vendor = period.vendorID else { return [] }
        let day = AlgiersCalendar.dayNumber(period.purchasedAt)
        let (months, amount) = (Int64(period.months), Int64(period.amountDZD))
        let commission = commissionSQL(months: "?", amount: "?", vendor: "?", day: "?")
        let commissionBinds: [SQLValue] = [.int(months), .int(amount), .int(months), .int(amount), .int(amount), .text(vendor.uuidString), .int(day)]
        return [
            SQLStatement(
                """
                INSERT INTO shop_entries (vendor_id, kind, recorded_at, day, amount_dzd, commission_dzd, months, period_id, member_uuid)
                VALUES (?, 'sale', ?, ?, ?, \(commission), ?, ?, ?)
                """,
                [.text(vendor.uuidString), .int(period.purchasedAt), .int(day), .int(amount)] + commissionBinds
                    + [.int(months), .text(period.id.uuidString), .text(period.memberUUID.uuidString)]
            ),
            SQLStatement(
                "INSERT INTO shop_day_changes (vendor_id, day, \(figureColumns)) VALUES (?, ?, 1, ?, 0, 0, \(commission), 0, 0)",
                [.text(vendor.uuidString), .int(day), .int(amount)] + commissionBinds
            ),
        ]
    }

    /// The entries of sales a change cancelled at `now`, each taking back its sale's cash and commission.
    static func cancellations(_ cancelled: [SubscriptionPeriod], now: Int64) -> [SQLStatement] {
        let day = AlgiersCalendar.dayNumber(now)
        let commission = "COALESCE((SELECT s.commission_dzd FROM shop_entries s WHERE s.period_id = p.id AND s.kind = 'sale'), 0)"
        return cancelled.filter { $0.source == .vendor && $0.vendorID != nil }.flatMap { period in
            [
                SQLStatement(
                    """
                    INSERT INTO shop_entries (vendor_id, kind, recorded_at, day, amount_dzd, commission_dzd, months, period_id, member_uuid)
                    SELECT p.vendor_id, 'cancellation', ?, ?, -p.amount_dzd, -\(commission), p.months, p.id, p.member_uuid
                    FROM periods p WHERE p.id = ?
                    """,
                    [.int(now), .int(day), .text(period.id.uuidString)]
                ),
                SQLStatement(
                    """
                    INSERT INTO shop_day_changes (vendor_id, day, \(figureColumns))
                    SELECT p.vendor_id, ?, 0, 0, 1, p.amount_dzd, -\(commission), 0, 0 FROM periods p WHERE p.id = ?
                    """,
                    [.int(day), .text(period.id.uuidString)]
                ),
            ]
        }
    }

    /// The shop's figures per day, folded and appended, summed by day, in day order; the whole account without
    /// `fromDay` and `toDay`.
    static func days(of vendor: UUID, from fromDay: Int64? = nil, to toDay: Int64? = nil) -> SQLStatement {
        var range = ""
        var rangeBinds: [SQLValue] = []
        if let fromDay {
            range += " AND day >= ?"
            rangeBinds.append(.int(fromDay))
        }
        if let toDay {
            range += " AND day <= ?"
            rangeBinds.append(.int(toDay))
        }
        let shop = [SQLValue.text(vendor.uuidString)] + rangeBinds
        return SQLStatement(
            """
            SELECT day, \(sums) FROM (
                SELECT day, \(figureColumns) FROM shop_days WHERE vendor_id = ?\(range)
                UNION ALL SELECT day, \(figureColumns) FROM shop_day_changes WHERE vendor_id = ?\(range)
            ) d GROUP BY day ORDER BY day
            """,
            shop + shop
        )
    }

    /// What a shop owes before `day`: the sum of its figures of earlier days.
    static func balance(of vendor: UUID, before day: Int64?) -> SQLStatement {
        let range = day == nil ? "" : " AND day < ?"
        let shop = [SQLValue.text(vendor.uuidString)] + (day.map { [SQLValue.int($0)] } ?? [])
        return SQLStatement(
            """
            SELECT CAST(COALESCE(SUM(sales_dzd - cancellations_dzd - commission_dzd - remitted_dzd + adjusted_dzd), 0) AS BIGINT) AS balance FROM (
                SELECT \(figureColumns) FROM shop_days WHERE vendor_id = ?\(range)
                UNION ALL SELECT \(figureColumns) FROM shop_day_changes WHERE vendor_id = ?\(range)
            ) d
            """,
            shop + shop
        )
    }

    /// Each figure column summed, under its own name.
    static let sums = figureColumns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.map {
        "CAST(SUM(\($0)) AS BIGINT) AS \($0)"
    }
    .joined(separator: ", ")

    static func figures(_ row: SQLRow) throws -> ShopDayFigures {
        ShopDayFigures(
            day: try row.int("day"),
            sales: try row.int("sales"),
            salesDZD: try row.int("sales_dzd"),
            cancellations: try row.int("cancellations"),
            cancellationsDZD: try row.int("cancellations_dzd"),
            commissionDZD: try row.int("commission_dzd"),
            remittedDZD: try row.int("remitted_dzd"),
            adjustedDZD: try row.int("adjusted_dzd")
        )
    }

    static func entry(_ row: SQLRow) throws -> ShopEntry {
        let read = RowReader(row: row, table: "shop_entries")
        return ShopEntry(
            seq: try read.int("seq"),
            vendorID: try read.uuid("vendor_id"),
            kind: try read.value("kind", as: ShopEntry.Kind.self),
            recordedAt: try read.int("recorded_at"),
            day: try read.int("day"),
            amountDZD: try read.int("amount_dzd"),
            commissionDZD: try read.int("commission_dzd"),
            months: try read.int("months"),
            periodID: try read.optionalUUID("period_id"),
            memberUUID: try read.optionalUUID("member_uuid"),
            method: try read.optionalText("method").map { text in
                guard let method = RemittanceMethod(rawValue: text) else { throw SQLError.unexpectedValue("shop_entries.method") }
                return method
            },
            reference: try read.optionalText("reference"),
            receivedBy: try read.optionalText("received_by"),
            reason: try read.optionalText("reason"),
            reverses: try read.optionalInt("reverses_seq"),
            recordedBy: try read.optionalText("recorded_by")
        )
    }

    /// Takes (deletes and returns) the oldest appended figures, at most ``ConsoleSummaries/foldBatch``: each is
    /// taken by one fold only, however many run at once.
    static let takeChanges = """
        DELETE FROM shop_day_changes WHERE seq IN (SELECT seq FROM shop_day_changes ORDER BY seq LIMIT \(ConsoleSummaries.foldBatch))
        RETURNING vendor_id, day, \(figureColumns)
        """

    /// Adds the taken figures to their days' rows and their stretches' rows, each row once, in key order (two folds
    /// at once add to the rows they share in the same order, and each adds what it took: no fold's figures are
    /// lost).
    static func foldStatements(_ changes: [SQLRow]) throws -> [SQLStatement] {
        var days: [SalesDayKey: ShopDayFigures] = [:]
        var stretches: [SalesDayKey: ShopDayFigures] = [:]
        for row in changes {
            let (day, vendor, change) = (try row.int("day"), try row.text("vendor_id"), try figures(row))
            let (dayKey, stretchKey) = (SalesDayKey(day: day, vendorID: vendor), SalesDayKey(day: day / stretchDays, vendorID: vendor))
            days[dayKey] = (days[dayKey] ?? ShopDayFigures(day: day)).adding(change)
            stretches[stretchKey] = (stretches[stretchKey] ?? ShopDayFigures(day: stretchKey.day)).adding(change)
        }
        return upserts(days, into: "shop_days", key: "day") + upserts(stretches, into: "shop_stretches", key: "stretch")
    }

    /// Adds each of `figures` to its row of `table`, whose key is the shop and `key` (the figures' `day`).
    private static func upserts(_ figures: [SalesDayKey: ShopDayFigures], into table: String, key: String) -> [SQLStatement] {
        let rows = figures.keys.sorted().map { key in
            let f = figures[key]!
            return [SQLValue.text(key.vendorID), .int(key.day)]
                + [f.sales, f.salesDZD, f.cancellations, f.cancellationsDZD, f.commissionDZD, f.remittedDZD, f.adjustedDZD].map(SQLValue.int)
        }
        let updates = figureColumns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.map {
            "\($0) = \(table).\($0) + excluded.\($0)"
        }
        return ConsoleSummaries.upserts(
            rows,
            "INSERT INTO \(table) (vendor_id, \(key), \(figureColumns)) VALUES %@ ON CONFLICT (vendor_id, \(key)) DO UPDATE SET \(updates.joined(separator: ", "))"
        )
    }

    /// What a day row moves the balance by, as an SQL expression over its figures.
    static let change = "sales_dzd - cancellations_dzd - commission_dzd - remitted_dzd + adjusted_dzd"

    /// Each shop's figures per day as the ledger says they must be: its sales and cancellations from `periods`
    /// (commission from the shop's commissions of the sale's day), the team's entries from `shop_entries`.
    static let daysFromLedgerQuery: String = {
        let day = { (column: String) in "(\(column) + \(AlgiersCalendar.utcOffset)) / 86400" }
        let commission = commissionSQL(months: "p.months", amount: "p.amount_dzd", vendor: "p.vendor_id", day: day("p.purchased_at"))
        return """
            SELECT vendor_id, day, \(sums) FROM (
                SELECT p.vendor_id, \(day("p.purchased_at")) AS day, 1 AS sales, p.amount_dzd AS sales_dzd, 0 AS cancellations,
                    0 AS cancellations_dzd, \(commission) AS commission_dzd, 0 AS remitted_dzd, 0 AS adjusted_dzd
                FROM periods p WHERE p.source = 'vendor' AND p.vendor_id IS NOT NULL
                UNION ALL
                SELECT p.vendor_id, \(day("p.cancelled_at")), 0, 0, 1, p.amount_dzd, -(\(commission)), 0, 0
                FROM periods p WHERE p.source = 'vendor' AND p.vendor_id IS NOT NULL AND p.cancelled_at IS NOT NULL
                UNION ALL
                SELECT vendor_id, day, \(figuresOfEntry) FROM shop_entries WHERE kind IN ('remittance', 'adjustment', 'reversal')
            ) x GROUP BY vendor_id, day ORDER BY vendor_id, day
            """
    }()

    /// Entries for the shops' sales and cancellations in `periods` that have none (rows loaded in bulk), each once,
    /// in time order, with no commission (a bulk load comes before any is set).
    static let entriesForUnaccountedSales: [String] = {
        let day = { (column: String) in "(\(column) + \(AlgiersCalendar.utcOffset)) / 86400" }
        return [
            """
            INSERT INTO shop_entries (vendor_id, kind, recorded_at, day, amount_dzd, commission_dzd, months, period_id, member_uuid)
            SELECT vendor_id, 'sale', purchased_at, \(day("purchased_at")), amount_dzd, 0, months, id, member_uuid FROM periods p
            WHERE source = 'vendor' AND vendor_id IS NOT NULL
                AND NOT EXISTS (SELECT 1 FROM shop_entries e WHERE e.period_id = p.id AND e.kind = 'sale')
            ORDER BY purchased_at, id
            """,
            """
            INSERT INTO shop_entries (vendor_id, kind, recorded_at, day, amount_dzd, commission_dzd, months, period_id, member_uuid)
            SELECT vendor_id, 'cancellation', cancelled_at, \(day("cancelled_at")), -amount_dzd, 0, months, id, member_uuid FROM periods p
            WHERE source = 'vendor' AND vendor_id IS NOT NULL AND cancelled_at IS NOT NULL
                AND NOT EXISTS (SELECT 1 FROM shop_entries e WHERE e.period_id = p.id AND e.kind = 'cancellation')
            ORDER BY cancelled_at, id
            """,
        ]
    }()

    /// Every shop's days computed again from its entries (the rebuild a test and the soak compare with).
    static let rebuildStatements = [
        "DELETE FROM shop_day_changes",
        "DELETE FROM shop_days",
        """
        INSERT INTO shop_days (vendor_id, day, \(figureColumns))
        SELECT vendor_id, day, \(sums)
        FROM (SELECT vendor_id, day, \(figuresOfEntry) FROM shop_entries) e GROUP BY vendor_id, day
        """,
        "DELETE FROM shop_stretches",
        "INSERT INTO shop_stretches (vendor_id, stretch, \(figureColumns)) SELECT vendor_id, day / \(stretchDays), \(sums) FROM shop_days GROUP BY vendor_id, day / \(stretchDays)",
    ]
}
