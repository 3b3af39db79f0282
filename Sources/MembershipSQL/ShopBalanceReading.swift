import Foundation
import Membership

/// Every shop's balance, since when it owes, and its balance day by day over a range, read at the real size (200
/// shops, three years of days) without summing every day of every shop: the balances from `shop_stretches` (each
/// shop's figures per ``ShopAccountRows/stretchDays`` days, kept by the fold) and the figures not folded yet, in
/// one statement; the stretches find where each owing shop's oldest unremitted cash lies, and that stretch's days
/// alone are read.
struct ShopBalanceReading {
    let db: any SQLExecutor

    /// Every shop's balance, in vendor order; shops without entries are left out.
    func balances() async throws -> [ShopBalance] {
        var stretches: [UUID: [Int64: ShopDayFigures]] = [:]
        for row in try await db.query(
            """
            SELECT vendor_id, stretch, 0 AS day, \(ShopAccountRows.sums) FROM (
                SELECT vendor_id, stretch, \(ShopAccountRows.figureColumns) FROM shop_stretches
                UNION ALL SELECT vendor_id, day / \(ShopAccountRows.stretchDays), \(ShopAccountRows.figureColumns) FROM shop_day_changes
            ) x GROUP BY vendor_id, stretch
            """,
            []
        ) {
            let vendor = try RowReader(row: row, table: "shop_stretches").uuid("vendor_id")
            stretches[vendor, default: [:]][try row.int("stretch")] = try ShopAccountRows.figures(row)
        }
        var balances: [ShopBalance] = []
        for (vendor, shop) in stretches.sorted(by: { $0.key.uuidString < $1.key.uuidString }) {
            let totals = shop.values.reduce(ShopDayFigures(day: 0)) { $0.adding($1) }
            let balance = totals.balanceChange
            var oldest: Int64?
            if balance > 0, let (stretch, owed) = Self.stretchOfOldestUnremittedDay(balance: balance, stretches: shop) {
                let first = stretch * ShopAccountRows.stretchDays
                let days = try await db.query(ShopAccountRows.days(of: vendor, from: first, to: first + ShopAccountRows.stretchDays - 1))
                    .map(ShopAccountRows.figures)
                oldest = ShopBalance.oldestUnremittedDay(balance: owed, days: days.map { ($0.day, Self.added($0)) })
            }
            balances.append(ShopBalance(vendorID: vendor, balanceDZD: balance, totals: totals, oldestUnremittedDay: oldest))
        }
        return balances
    }

    /// The stretch holding a shop's oldest unremitted day, and what of the balance its days must make up: back
    /// from the latest stretch to the one whose cash, with that of every later one, makes up the balance; the first
    /// with cash, all of it owed, when none does. A stretch's cash is the sum of its days' (see ``added(_:)``).
    static func stretchOfOldestUnremittedDay(balance: Int64, stretches: [Int64: ShopDayFigures]) -> (stretch: Int64, owed: Int64)? {
        var owed = balance
        for (stretch, figures) in stretches.sorted(by: { $0.key > $1.key }) where added(figures) > 0 {
            if owed - added(figures) <= 0 { return (stretch, owed) }
            owed -= added(figures)
        }
        return stretches.keys.sorted().first { added(stretches[$0]!) > 0 }.map { ($0, Int64.max) }
    }

    /// Every shop's balance at the end of each day from `fromDay` to `toDay` that moved it, with its opening (the
    /// balance before `fromDay`, on `fromDay`) when it had days before; in one statement: the stretches before
    /// `fromDay`'s, the days from its stretch on, and the figures not folded yet, each day before `fromDay` counted
    /// as the day before it.
    func history(from fromDay: Int64, to toDay: Int64) async throws -> [UUID: [(day: Int64, balanceDZD: Int64)]] {
        let (stretch, before) = (fromDay / ShopAccountRows.stretchDays, fromDay - 1)
        let dayOrBefore = "CASE WHEN day < ? THEN ? ELSE day END"
        var opening: [UUID: Int64] = [:]
        var changes: [UUID: [Int64: Int64]] = [:]
        for row in try await db.query(
            """
            SELECT vendor_id, day, CAST(SUM(change) AS BIGINT) AS change FROM (
                SELECT vendor_id, CAST(? AS BIGINT) AS day, \(ShopAccountRows.change) AS change FROM shop_stretches WHERE stretch < ?
                UNION ALL SELECT vendor_id, \(dayOrBefore), \(ShopAccountRows.change) FROM shop_days WHERE day >= ? AND day <= ?
                UNION ALL SELECT vendor_id, \(dayOrBefore), \(ShopAccountRows.change) FROM shop_day_changes WHERE day <= ?
            ) x GROUP BY vendor_id, day
            """,
            [.int(before), .int(stretch)] + [.int(fromDay), .int(before), .int(stretch * ShopAccountRows.stretchDays), .int(toDay)]
                + [.int(fromDay), .int(before), .int(toDay)]
        ) {
            let (vendor, day) = (try RowReader(row: row, table: "shop_days").uuid("vendor_id"), try row.int("day"))
            if day == before {
                opening[vendor] = try row.int("change")
            } else {
                changes[vendor, default: [:]][day] = try row.int("change")
            }
        }
        var history: [UUID: [(day: Int64, balanceDZD: Int64)]] = [:]
        for vendor in Set(opening.keys).union(changes.keys) {
            var balance = opening[vendor] ?? 0
            let days = (changes[vendor] ?? [:]).sorted { $0.key < $1.key }
            var moves: [(day: Int64, balanceDZD: Int64)] = []
            if opening[vendor] != nil, days.first?.key != fromDay { moves.append((fromDay, balance)) }
            for (day, change) in days {
                balance += change
                moves.append((day, balance))
            }
            history[vendor] = moves
        }
        return history
    }

    /// The cash the sales of a day (or a stretch of days) brought that the shop keeps owing until remitted: its sales
    /// less its commission, when that is more than nothing (as ``ShopBalance/oldestUnremittedDay(balance:days:)``
    /// counts it). No day's is less than nothing (a sale's commission is at most its amount, a cancellation's is
    /// taken back), so a stretch's is the sum of its days'.
    static func added(_ day: ShopDayFigures) -> Int64 { max(0, day.salesDZD - day.commissionDZD) }
}
