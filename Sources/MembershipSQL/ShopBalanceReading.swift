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
        var wanted: [UUID: (stretch: Int64, owed: Int64)] = [:]
        for (vendor, shop) in stretches {
            let balance = shop.values.reduce(0) { $0 + $1.balanceChange }
            if balance > 0, let found = Self.stretchOfOldestUnremittedDay(balance: balance, stretches: shop) { wanted[vendor] = found }
        }
        let days = try await self.days(inStretches: wanted.mapValues(\.stretch))
        return stretches.sorted(by: { $0.key.uuidString < $1.key.uuidString }).map { vendor, shop in
            let totals = shop.values.reduce(ShopDayFigures(day: 0)) { $0.adding($1) }
            let oldest = wanted[vendor].flatMap { found in
                ShopBalance.oldestUnremittedDay(balance: found.owed, days: (days[vendor] ?? []).map { ($0.day, Self.added($0)) })
            }
            return ShopBalance(vendorID: vendor, balanceDZD: totals.balanceChange, totals: totals, oldestUnremittedDay: oldest)
        }
    }

    /// Each shop's days of the stretch given for it, folded and not, in day order, a statement a shop (one statement
    /// for them all, joining a list of the shops' stretches, was slower on both stores: 170 ms against 128 ms for 200
    /// shops on PostgreSQL, which scanned every day).
    func days(inStretches wanted: [UUID: Int64]) async throws -> [UUID: [ShopDayFigures]] {
        var days: [UUID: [ShopDayFigures]] = [:]
        for (vendor, stretch) in wanted {
            let first = stretch * ShopAccountRows.stretchDays
            days[vendor] = try await db.query(ShopAccountRows.days(of: vendor, from: first, to: first + ShopAccountRows.stretchDays - 1))
                .map(ShopAccountRows.figures)
        }
        return days
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

    /// The `count` shops owing most at the end of `toDay` (the larger balance first, then the vendor id), each with
    /// its balance at the end of each day from `fromDay` to `toDay` that moved it, and its opening (the balance
    /// before `fromDay`, on `fromDay`) when it had days before; in one statement: the stretches before `fromDay`'s,
    /// the days from its stretch on, and the figures not folded yet, each day before `fromDay` counted as the day
    /// before it.
    func history(from fromDay: Int64, to toDay: Int64, owingMost count: Int) async throws -> [UUID: [(day: Int64, balanceDZD: Int64)]] {
        let shops = try await balances(atEndOf: toDay).sorted { ($0.value, $1.key.uuidString) > ($1.value, $0.key.uuidString) }.prefix(count)
        guard !shops.isEmpty else { return [:] }
        let (only, ids) = ("vendor_id IN (\(shops.map { _ in "?" }.joined(separator: ", ")))", shops.map { SQLValue.text($0.key.uuidString) })
        let (stretch, before) = (fromDay / ShopAccountRows.stretchDays, fromDay - 1)
        let dayOrBefore = "CASE WHEN day < ? THEN ? ELSE day END"
        var opening: [UUID: Int64] = [:]
        var changes: [UUID: [Int64: Int64]] = [:]
        for row in try await db.query(
            """
            SELECT vendor_id, day, CAST(SUM(change) AS BIGINT) AS change FROM (
                SELECT vendor_id, CAST(? AS BIGINT) AS day, \(ShopAccountRows.change) AS change FROM shop_stretches WHERE \(only) AND stretch < ?
                UNION ALL SELECT vendor_id, \(dayOrBefore), \(ShopAccountRows.change) FROM shop_days WHERE \(only) AND day >= ? AND day <= ?
                UNION ALL SELECT vendor_id, \(dayOrBefore), \(ShopAccountRows.change) FROM shop_day_changes WHERE \(only) AND day <= ?
            ) x GROUP BY vendor_id, day
            """,
            [.int(before)] + ids + [.int(stretch)] + [.int(fromDay), .int(before)] + ids + [.int(stretch * ShopAccountRows.stretchDays), .int(toDay)]
                + [.int(fromDay), .int(before)] + ids + [.int(toDay)]
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

    /// Every shop's balance at the end of `day`, in one statement: its stretches before `day`'s, the days of that
    /// stretch up to `day` (of the shops with a row for that stretch: no other has any), the figures not folded yet.
    func balances(atEndOf day: Int64) async throws -> [UUID: Int64] {
        let stretch = day / ShopAccountRows.stretchDays
        var balances: [UUID: Int64] = [:]
        for row in try await db.query(
            """
            SELECT vendor_id, CAST(SUM(change) AS BIGINT) AS balance FROM (
                SELECT vendor_id, \(ShopAccountRows.change) AS change FROM shop_stretches WHERE stretch < ?
                UNION ALL SELECT vendor_id, \(ShopAccountRows.change) FROM shop_days
                    WHERE vendor_id IN (SELECT vendor_id FROM shop_stretches WHERE stretch = ?) AND day >= ? AND day <= ?
                UNION ALL SELECT vendor_id, \(ShopAccountRows.change) FROM shop_day_changes WHERE day <= ?
            ) x GROUP BY vendor_id
            """,
            [.int(stretch), .int(stretch), .int(stretch * ShopAccountRows.stretchDays), .int(day), .int(day)]
        ) {
            balances[try RowReader(row: row, table: "shop_days").uuid("vendor_id")] = try row.int("balance")
        }
        return balances
    }

    /// The cash the sales of a day (or a stretch of days) brought that the shop keeps owing until remitted: its sales
    /// less its commission, when that is more than nothing (as ``ShopBalance/oldestUnremittedDay(balance:days:)``
    /// counts it). No day's is less than nothing (a sale's commission is at most its amount, a cancellation's is
    /// taken back), so a stretch's is the sum of its days'.
    static func added(_ day: ShopDayFigures) -> Int64 { max(0, day.salesDZD - day.commissionDZD) }
}
