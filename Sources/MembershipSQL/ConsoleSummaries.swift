import Foundation
import Membership
import PeezBasics

/// The summary tables the console reads (migrations 016 and 018), and the statements that keep them: each change
/// adds its own rows to them in its own transaction, so a panel sums a few hundred rows however big the ledger is.
///
/// - `sales_days`: per Algiers day of sale and vendor ('' for a sale in the app), the sales, months and DZD net
///   of cancellations, and the sales cancelled.
/// - `coverage_days`: per Algiers day, `ending`: the members whose paid time ends that day now; `renewed`: the
///   sales that extended a paid time that ended (or was to end) that day. A day's members due are the two
///   summed.
/// - `reminder_days`, `push_days`: reminders and Wallet pushes settled per day, by channel or platform and outcome.
///
/// A sale or cancellation never updates a day's row: it appends its change to `sales_day_changes` and
/// `coverage_day_changes`, which no other transaction waits for (all sales of a shop on a day share one row, and
/// all sales of a day one end of paid time: updated in place, they would wait for each other's commit). Readers
/// sum a day's row and its appended changes (``salesSource``, ``coverageSource``), so every figure is exact at
/// once; ``foldStatements`` move the changes into the rows now and then, which only keeps what readers sum small.
///
/// ``rebuildStatements`` recompute every summary that the ledger's rows determine from those rows (the seeder's
/// after a bulk load; a test holds the write path to it).
enum ConsoleSummaries {
    /// Wallet tallies are split over this many rows at random: every sum is exact, and two changes seldom wait
    /// for one row.
    static let shards: Int64 = 8
    /// Two scans of one card at most this many seconds apart at two shops are a shared card.
    static let sharedWithin: Int64 = 600

    /// The Algiers day number (days since 1970-01-01 in Algiers) of a time, as SQL computes it too.
    static func day(_ seconds: Int64) -> Int64 { AlgiersCalendar.dayNumber(seconds) }

    /// The SQL of ``day(_:)`` over a column.
    static func daySQL(_ column: String) -> String { "(\(column) + \(AlgiersCalendar.utcOffset)) / 86400" }

    /// A sale's summary rows: the shop's day, the paid time it renewed (if any), the new end.
    static func sale(_ period: SubscriptionPeriod, renewsEnd: Int64?) -> [SQLStatement] {
        var coverage: [(day: Int64, ending: Int64, renewed: Int64)] = [(day(period.endsAt), 1, 0)]
        if let renewsEnd { coverage.append((day(renewsEnd), -1, 1)) }
        return [salesDay(period, sign: 1)] + coverageDays(coverage)
    }

    /// A revoking change's summary rows: periods it cancelled (`cancelled`) leave their shop's day; each renewal
    /// whose renewed end moved (`renewals`: the end before and after, nil for none: a cancelled period's renewal
    /// ends, a period left first renews nothing) moves between days; a moved end of paid time moves between days.
    static func revokingChange(
        coverageBefore: Int64?,
        coverageAfter: Int64?,
        cancelled: [SubscriptionPeriod],
        renewals: [(before: Int64?, after: Int64?)]
    ) -> [SQLStatement] {
        var coverage: [(day: Int64, ending: Int64, renewed: Int64)] = []
        if coverageBefore != coverageAfter {
            if let coverageBefore { coverage.append((day(coverageBefore), -1, 0)) }
            if let coverageAfter { coverage.append((day(coverageAfter), 1, 0)) }
        }
        for renewal in renewals where renewal.before != renewal.after {
            if let before = renewal.before { coverage.append((day(before), 0, -1)) }
            if let after = renewal.after { coverage.append((day(after), 0, 1)) }
        }
        // Rows in key order (day, shop), as every change takes them.
        let byKey = cancelled.sorted {
            (day($0.purchasedAt), $0.vendorID?.uuidString ?? "") < (day($1.purchasedAt), $1.vendorID?.uuidString ?? "")
        }
        return byKey.map { salesDay($0, sign: -1) } + coverageDays(coverage)
    }

    /// The sales per day and shop, as readers sum them: the folded rows and the changes appended since.
    static let salesSource = """
        (SELECT day, vendor_id, sales, months, amount_dzd, cancelled FROM sales_days
            UNION ALL SELECT day, vendor_id, sales, months, amount_dzd, cancelled FROM sales_day_changes)
        """
    /// The ends of paid time per day, as readers sum them: the folded rows and the changes appended since.
    static let coverageSource = """
        (SELECT day, ending, renewed FROM coverage_days UNION ALL SELECT day, ending, renewed FROM coverage_day_changes)
        """

    /// The change to a shop's day of sales made by a sale (`sign` 1) or its cancellation (-1), appended.
    private static func salesDay(_ period: SubscriptionPeriod, sign: Int64) -> SQLStatement {
        SQLStatement(
            "INSERT INTO sales_day_changes (day, vendor_id, sales, months, amount_dzd, cancelled) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .int(day(period.purchasedAt)), .text(period.vendorID?.uuidString ?? ""), .int(sign), .int(sign * Int64(period.months)),
                .int(sign * Int64(period.amountDZD)), .int(sign < 0 ? 1 : 0),
            ]
        )
    }

    /// The changes to the days' ends of paid time, one per day, appended in one statement (none if they cancel out).
    private static func coverageDays(_ changes: [(day: Int64, ending: Int64, renewed: Int64)]) -> [SQLStatement] {
        var byDay: [Int64: (ending: Int64, renewed: Int64)] = [:]
        for change in changes {
            let sum = byDay[change.day, default: (0, 0)]
            byDay[change.day] = (sum.ending + change.ending, sum.renewed + change.renewed)
        }
        let rows = byDay.keys.sorted().filter { byDay[$0]! != (0, 0) }
        guard !rows.isEmpty else { return [] }
        return [
            SQLStatement(
                "INSERT INTO coverage_day_changes (day, ending, renewed) VALUES \(rows.map { _ in "(?, ?, ?)" }.joined(separator: ", "))",
                rows.flatMap { day in [.int(day), .int(byDay[day]!.ending), .int(byDay[day]!.renewed)] }
            )
        ]
    }

    /// How many appended changes one fold moves at most, per table.
    static let foldBatch = 5_000

    /// Takes (deletes and returns) the oldest appended changes of sales, at most ``foldBatch``: each is taken by
    /// one fold only, however many run at once.
    static let takeSalesChanges = """
        DELETE FROM sales_day_changes WHERE seq IN (SELECT seq FROM sales_day_changes ORDER BY seq LIMIT \(foldBatch))
        RETURNING day, vendor_id, sales, months, amount_dzd, cancelled
        """
    /// Takes the oldest appended changes of the ends of paid time, as ``takeSalesChanges``.
    static let takeCoverageChanges = """
        DELETE FROM coverage_day_changes WHERE seq IN (SELECT seq FROM coverage_day_changes ORDER BY seq LIMIT \(foldBatch))
        RETURNING day, ending, renewed
        """

    /// Adds the taken changes to their days' rows, each row once, in key order (two folds take the rows they share
    /// in the same order, so they wait for each other rather than deadlock), a few hundred rows a statement.
    static func foldStatements(sales: [SQLRow], coverage: [SQLRow]) throws -> [SQLStatement] {
        var salesByKey: [SalesDayKey: [Int64]] = [:]
        for row in sales {
            let key = SalesDayKey(day: try row.int("day"), vendorID: try row.text("vendor_id"))
            let values = [try row.int("sales"), try row.int("months"), try row.int("amount_dzd"), try row.int("cancelled")]
            salesByKey[key] = zip(salesByKey[key] ?? [0, 0, 0, 0], values).map(+)
        }
        var coverageByDay: [Int64: [Int64]] = [:]
        for row in coverage {
            let day = try row.int("day")
            coverageByDay[day] = zip(coverageByDay[day] ?? [0, 0], [try row.int("ending"), try row.int("renewed")]).map(+)
        }
        let salesRows = salesByKey.keys.sorted().map { key in [SQLValue.int(key.day), .text(key.vendorID)] + salesByKey[key]!.map(SQLValue.int) }
        let coverageRows = coverageByDay.keys.sorted().map { day in [SQLValue.int(day), .int(0)] + coverageByDay[day]!.map(SQLValue.int) }
        return upserts(
            salesRows,
            """
            INSERT INTO sales_days (day, vendor_id, sales, months, amount_dzd, cancelled) VALUES %@
            ON CONFLICT (day, vendor_id) DO UPDATE SET sales = sales_days.sales + excluded.sales,
                months = sales_days.months + excluded.months, amount_dzd = sales_days.amount_dzd + excluded.amount_dzd,
                cancelled = sales_days.cancelled + excluded.cancelled
            """
        )
            + upserts(
                coverageRows,
                """
                INSERT INTO coverage_days (day, shard, ending, renewed) VALUES %@
                ON CONFLICT (day, shard) DO UPDATE SET ending = coverage_days.ending + excluded.ending,
                    renewed = coverage_days.renewed + excluded.renewed
                """
            )
    }

    /// `rows` in statements of at most 500 rows: `sql` with its `%@` replaced by that many rows of placeholders.
    static func upserts(_ rows: [[SQLValue]], _ sql: String) -> [SQLStatement] {
        stride(from: 0, to: rows.count, by: 500).map { start in
            let chunk = rows[start..<min(start + 500, rows.count)]
            let placeholders = chunk.map { "(" + $0.map { _ in "?" }.joined(separator: ", ") + ")" }.joined(separator: ", ")
            return SQLStatement(sql.replacingOccurrences(of: "%@", with: placeholders), Array(chunk.joined()))
        }
    }

    /// What `wallet_tallies` counts.
    enum WalletTally: String {
        case applePasses = "apple_passes"
        case appleDevices = "apple_devices"
        case googleObjects = "google_objects"
    }

    /// Moves a Wallet tally by `delta`, on a shard chosen at random.
    static func walletTally(_ tally: WalletTally, by delta: Int64) -> SQLStatement {
        SQLStatement(
            """
            INSERT INTO wallet_tallies (kind, shard, count) VALUES (?, ?, ?)
            ON CONFLICT (kind, shard) DO UPDATE SET count = wallet_tallies.count + excluded.count
            """,
            [.text(tally.rawValue), .int(Int64.random(in: 0..<shards)), .int(delta)]
        )
    }

    /// Counts reminders settled at `now`, by channel and outcome.
    static func remindersSettled(_ counts: [ReminderDayKey: Int], now: Int64) -> [SQLStatement] {
        counts.keys.sorted { ($0.channel, $0.outcome) < ($1.channel, $1.outcome) }.map { key in
            SQLStatement(
                """
                INSERT INTO reminder_days (day, channel, outcome, count) VALUES (?, ?, ?, ?)
                ON CONFLICT (day, channel, outcome) DO UPDATE SET count = reminder_days.count + excluded.count
                """,
                [.int(day(now)), .text(key.channel), .text(key.outcome), .int(Int64(counts[key]!))]
            )
        }
    }

    /// Counts one push to `platform`'s devices settled at `now` with `outcome`, if `owner` still holds the
    /// lease on the member's row of `table` (the settling statement that follows changes nothing otherwise).
    static func pushSettled(platform: String, outcome: String, table: String, member: UUID, owner: String, now: Int64) -> SQLStatement {
        SQLStatement(
            """
            INSERT INTO push_days (day, platform, outcome, count)
            SELECT ?, ?, ?, 1 FROM \(table) WHERE member_uuid = ? AND lease_owner = ?
            ON CONFLICT (day, platform, outcome) DO UPDATE SET count = push_days.count + 1
            """,
            [.int(day(now)), .text(platform), .text(outcome), .text(member.uuidString), .text(owner)]
        )
    }

    /// Each live period's `id` and `renewed_end`: the end of the paid time it extended, which is the end of the
    /// member's live period before it in purchase order (live periods follow each other, so the latest end of
    /// those before it), null for the first. What `periods.renews_end` holds for every live period.
    static let renewedEnds = """
        SELECT id, MAX(ends_at) OVER (PARTITION BY member_uuid ORDER BY seq ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS renewed_end
        FROM periods WHERE cancelled_at IS NULL
        """

    /// Every summary the ledger's rows determine, computed again from them (pushes and retried reminders are
    /// not kept in rows: they are left as they are).
    static func rebuildStatements(_ dialect: SQLDialect) -> [String] {
        // Ties in time are broken by shop, counter and entry compared byte by byte, as Swift compares them.
        let bytes = dialect.bytewiseCollation
        return [
            "DELETE FROM sales_day_changes",
            "DELETE FROM coverage_day_changes",
            "DELETE FROM sales_days",
            """
            INSERT INTO sales_days (day, vendor_id, sales, months, amount_dzd, cancelled)
            SELECT \(daySQL("purchased_at")), COALESCE(vendor_id, ''),
                SUM(CASE WHEN cancelled_at IS NULL THEN 1 ELSE 0 END), SUM(CASE WHEN cancelled_at IS NULL THEN months ELSE 0 END),
                SUM(CASE WHEN cancelled_at IS NULL THEN amount_dzd ELSE 0 END), SUM(CASE WHEN cancelled_at IS NULL THEN 0 ELSE 1 END)
            FROM periods GROUP BY \(daySQL("purchased_at")), COALESCE(vendor_id, '')
            """,
            "DELETE FROM coverage_days",
            """
            INSERT INTO coverage_days (day, shard, ending, renewed)
            SELECT day, 0, SUM(ending), SUM(renewed) FROM (
                SELECT \(daySQL("coverage_end")) AS day, 1 AS ending, 0 AS renewed FROM members WHERE coverage_end IS NOT NULL
                UNION ALL
                SELECT \(daySQL("renewed_end")) AS day, 0 AS ending, 1 AS renewed FROM (\(renewedEnds)) renewals WHERE renewed_end IS NOT NULL
            ) changes GROUP BY day
            """,
            "DELETE FROM shared_sightings",
            "DELETE FROM sighting_queue",
            // Each valid scan paired with the one before it in its card's time order, when at another shop (or the
            // same presentation at another counter) and near enough: a card's closest such pair at two shops is
            // always two neighbours, so each card shared has its closest pair, as the write path finds it.
            """
            INSERT INTO shared_sightings (earlier_vendor_id, earlier_counter_id, earlier_seq, later_vendor_id, later_counter_id, later_seq,
                token_id, later_at, seconds_apart)
            SELECT p_vendor_id, p_counter_id, p_seq, vendor_id, counter_id, seq, token_id, scanned_at, scanned_at - p_scanned_at FROM (
                SELECT token_id, vendor_id, counter_id, seq, scanned_at, presented_at, LAG(vendor_id) OVER card AS p_vendor_id,
                    LAG(counter_id) OVER card AS p_counter_id, LAG(seq) OVER card AS p_seq, LAG(scanned_at) OVER card AS p_scanned_at,
                    LAG(presented_at) OVER card AS p_presented_at
                FROM counter_scans WHERE token_id IS NOT NULL AND verdict = 'valid'
                WINDOW card AS (PARTITION BY token_id ORDER BY scanned_at, vendor_id\(bytes), counter_id\(bytes), seq)
            ) neighbours
            WHERE p_vendor_id IS NOT NULL AND scanned_at - p_scanned_at <= \(sharedWithin)
                AND (p_vendor_id <> vendor_id OR (p_counter_id <> counter_id AND p_presented_at = presented_at))
            """,
            "DELETE FROM wallet_tallies",
            """
            INSERT INTO wallet_tallies (kind, shard, count)
            SELECT 'apple_passes', 0, COUNT(*) FROM wallet_passes
            UNION ALL SELECT 'apple_devices', 0, COUNT(*) FROM wallet_registrations
            UNION ALL SELECT 'google_objects', 0, COUNT(*) FROM google_wallet_objects
            """,
            "DELETE FROM reminder_days WHERE outcome <> 'retried'",
            """
            INSERT INTO reminder_days (day, channel, outcome, count)
            SELECT \(daySQL("updated_at")), channel, state, COUNT(*) FROM reminders
            WHERE state IN ('delivered', 'failed', 'superseded', 'exhausted')
            GROUP BY \(daySQL("updated_at")), channel, state
            """,
        ]
    }
}

/// A row of `sales_days`: an Algiers day and a vendor ('' for the app).
struct SalesDayKey: Hashable, Comparable {
    var day: Int64
    var vendorID: String

    static func < (left: SalesDayKey, right: SalesDayKey) -> Bool { (left.day, left.vendorID) < (right.day, right.vendorID) }
}

/// A reminder outcome counted per day: its channel and outcome (a final state, or `retried`).
struct ReminderDayKey: Hashable {
    var channel: String
    var outcome: String
}
