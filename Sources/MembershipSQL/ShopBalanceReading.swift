import Foundation
import Membership

/// Every shop's balance, since when it owes, and its balance day by day over a range, read at the real size (200
/// shops, three years of days) without a running sum over every day of every shop: one pass over `shop_days` sums
/// each shop's figures per stretch of ``stretchDays`` days (the few days with figures not folded yet merged in), the
/// stretches find where each owing shop's oldest unremitted cash lies, and that stretch's days alone are read.
struct ShopBalanceReading {
    let db: any SQLExecutor

    /// The days summed together on the way to a shop's oldest unremitted day.
    static let stretchDays: Int64 = 32

    /// The figures appended and not folded yet, per shop and day.
    func pendingDays() async throws -> [UUID: [Int64: ShopDayFigures]] {
        var pending: [UUID: [Int64: ShopDayFigures]] = [:]
        for row in try await db.query(
            "SELECT vendor_id, day, \(ShopAccountRows.sums) FROM shop_day_changes GROUP BY vendor_id, day",
            []
        ) {
            let vendor = try RowReader(row: row, table: "shop_day_changes").uuid("vendor_id")
            pending[vendor, default: [:]][try row.int("day")] = try ShopAccountRows.figures(row)
        }
        return pending
    }

    /// Every shop's balance, in vendor order; shops without entries are left out.
    func balances() async throws -> [ShopBalance] {
        let pending = try await pendingDays()
        // The folded figures of the days that also have pending ones: their sum is what counts for the day.
        var folded: [UUID: [Int64: ShopDayFigures]] = [:]
        for row in try await db.query(
            """
            SELECT s.vendor_id, s.day, \(ShopAccountRows.figureColumns.split(separator: ",").map { "s." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", "))
            FROM (SELECT DISTINCT vendor_id, day FROM shop_day_changes) c JOIN shop_days s ON s.vendor_id = c.vendor_id AND s.day = c.day
            """,
            []
        ) {
            let vendor = try RowReader(row: row, table: "shop_days").uuid("vendor_id")
            folded[vendor, default: [:]][try row.int("day")] = try ShopAccountRows.figures(row)
        }
        var stretches: [UUID: [Int64: (figures: ShopDayFigures, added: Int64)]] = [:]
        for row in try await db.query(ShopAccountRows.stretchesQuery(days: Self.stretchDays), []) {
            let vendor = try RowReader(row: row, table: "shop_days").uuid("vendor_id")
            stretches[vendor, default: [:]][try row.int("stretch")] = (try ShopAccountRows.figures(row), try row.int("added"))
        }
        for (vendor, days) in pending {
            for (day, change) in days {
                let before = folded[vendor]?[day] ?? ShopDayFigures(day: day)
                var stretch = stretches[vendor]?[day / Self.stretchDays] ?? (ShopDayFigures(day: 0), 0)
                stretch.figures = stretch.figures.adding(change)
                stretch.added += Self.added(before.adding(change)) - Self.added(before)
                stretches[vendor, default: [:]][day / Self.stretchDays] = stretch
            }
        }
        var balances: [ShopBalance] = []
        for (vendor, shop) in stretches.sorted(by: { $0.key.uuidString < $1.key.uuidString }) {
            let totals = shop.values.reduce(ShopDayFigures(day: 0)) { $0.adding($1.figures) }
            let balance = totals.balanceChange
            var oldest: Int64?
            if balance > 0 {
                // Back from the latest stretch to the one whose cash, with that of every later one, makes up the
                // balance; the first with cash when none does. Then that stretch's own days.
                var owed = balance
                var found: (stretch: Int64, owed: Int64)?
                for (stretch, figures) in shop.sorted(by: { $0.key > $1.key }) where figures.added > 0 {
                    if owed - figures.added <= 0 {
                        found = (stretch, owed)
                        break
                    }
                    owed -= figures.added
                }
                if let (stretch, owed) = found ?? shop.keys.sorted().first(where: { shop[$0]!.added > 0 }).map({ ($0, Int64.max) }) {
                    let days = try await days(of: vendor, inStretch: stretch, pending: pending[vendor] ?? [:])
                    oldest = ShopBalance.oldestUnremittedDay(balance: owed, days: days.map { ($0.day, $0.salesDZD - $0.commissionDZD) })
                }
            }
            balances.append(ShopBalance(vendorID: vendor, balanceDZD: balance, totals: totals, oldestUnremittedDay: oldest))
        }
        return balances
    }

    /// A shop's days of one stretch, pending figures merged, in day order.
    func days(of vendor: UUID, inStretch stretch: Int64, pending: [Int64: ShopDayFigures]) async throws -> [ShopDayFigures] {
        let (first, last) = (stretch * Self.stretchDays, stretch * Self.stretchDays + Self.stretchDays - 1)
        var days: [Int64: ShopDayFigures] = [:]
        for row in try await db.query(
            "SELECT day, \(ShopAccountRows.figureColumns) FROM shop_days WHERE vendor_id = ? AND day >= ? AND day <= ?",
            [.text(vendor.uuidString), .int(first), .int(last)]
        ) {
            days[try row.int("day")] = try ShopAccountRows.figures(row)
        }
        for (day, change) in pending where (first...last).contains(day) {
            days[day] = (days[day] ?? ShopDayFigures(day: day)).adding(change)
        }
        return days.values.sorted { $0.day < $1.day }
    }

    /// Every shop's balance at the end of each day from `fromDay` to `toDay` that moved it, with its opening (the
    /// balance before `fromDay`, on `fromDay`) when it had days before: the figures before the range summed per shop
    /// in one pass, the range's days read as they are.
    func history(from fromDay: Int64, to toDay: Int64) async throws -> [UUID: [(day: Int64, balanceDZD: Int64)]] {
        var opening: [UUID: Int64] = [:]
        for row in try await db.query(
            "SELECT vendor_id, CAST(SUM(\(ShopAccountRows.change)) AS BIGINT) AS change FROM shop_days WHERE day < ? GROUP BY vendor_id",
            [.int(fromDay)]
        ) {
            opening[try RowReader(row: row, table: "shop_days").uuid("vendor_id")] = try row.int("change")
        }
        var changes: [UUID: [Int64: Int64]] = [:]
        for row in try await db.query(
            "SELECT vendor_id, day, \(ShopAccountRows.change) AS change FROM shop_days WHERE day >= ? AND day <= ?",
            [.int(fromDay), .int(toDay)]
        ) {
            changes[try RowReader(row: row, table: "shop_days").uuid("vendor_id"), default: [:]][try row.int("day")] = try row.int("change")
        }
        for (vendor, days) in try await pendingDays() {
            for (day, figures) in days where day <= toDay {
                if day < fromDay {
                    opening[vendor, default: 0] += figures.balanceChange
                } else {
                    changes[vendor, default: [:]][day, default: 0] += figures.balanceChange
                }
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

    /// The cash a day's sales brought that the shop keeps owing until remitted: its sales less its commission, when
    /// that is more than nothing (as ``ShopBalance/oldestUnremittedDay(balance:days:)`` counts it).
    static func added(_ day: ShopDayFigures) -> Int64 { max(0, day.salesDZD - day.commissionDZD) }
}
