import Foundation
import Membership
import PeezBasics

/// The summary of subscription figures (migration 024, Docs/console.md): `subscription_days` holds, per Algiers
/// day, kind, cohort (`YYYYMM`, 0 for rows not counted by cohort) and detail, members and dinars:
/// - the rows of ``SubscriptionFigures`` for each live period (`sale.*`, `start.*`, `end`);
/// - `reminder.delivered`: reminders delivered that day, detail `<channel> <threshold>`;
/// - `reminder.renewed`: of those, one per renewal of the paid time the reminder was about bought at its delivery
///   or in the ``SubscriptionFigures/reminderWindowDays`` after it (counted on the delivery's day).
///
/// As with the other summaries, each change appends its rows to `subscription_day_changes` in its own transaction;
/// readers sum both (``source``), and the fold moves the changes into the days' rows.
enum SubscriptionSummaries {
    /// The rows as readers sum them: the folded days and the changes appended since.
    static let source = """
        (SELECT day, kind, cohort, detail, members, dzd FROM subscription_days
            UNION ALL SELECT day, kind, cohort, detail, members, dzd FROM subscription_day_changes)
        """

    private static let insert = "INSERT INTO subscription_day_changes (day, kind, cohort, detail, members, dzd)"

    /// A sale's rows: its sale, and its paid time in the member's cohort; and, for a renewal bought when a
    /// reminder about the end it renews may have been delivered (reminders are recorded from 7 days before an
    /// end), one for each reminder delivered about that end in the window before it.
    static func sale(_ sale: SaleRecord) -> [SQLStatement] {
        let period = sale.period
        let movements = SubscriptionFigures.movements(of: period, renewsEnd: sale.renewsEnd)
        let rows = SQLStatement(
            "\(insert) VALUES \(movements.map { _ in "(?, ?, ?, ?, ?, ?)" }.joined(separator: ", "))",
            movements.flatMap { movement in
                [
                    .int(movement.day), .text(movement.kind), .int(movement.isCohorted ? sale.cohortMonth : 0), .text(movement.detail),
                    .int(movement.members), .int(movement.dzd),
                ]
            }
        )
        let earliestReminder = Reminder.Threshold.sevenDays.days * 86_400
        guard let renewsEnd = sale.renewsEnd, period.purchasedAt >= renewsEnd - earliestReminder else { return [rows] }
        return [
            rows,
            remindersRenewed(member: period.memberUUID, SubscriptionFigures.Renewal(renewsEnd: renewsEnd, purchasedAt: period.purchasedAt), sign: 1),
        ]
    }

    /// What a change that cancels periods (or moves their dates) moves: the rows of the member's live periods
    /// before it taken back, those after it added (rows that are the same in both are left out), and the renewals
    /// credited to reminders that it ends or makes.
    static func revokingChange(member: UUID, before: [SubscriptionPeriod], after: [SubscriptionPeriod]) -> [SQLStatement] {
        let old = SubscriptionFigures.figures(of: before)
        let new = SubscriptionFigures.figures(of: after)
        var sums: [FoldKey: (members: Int64, dzd: Int64)] = [:]
        func add(_ movements: [SubscriptionFigures.Movement], cohort: Int64?) {
            for movement in movements {
                let key = FoldKey(day: movement.day, kind: movement.kind, cohort: movement.isCohorted ? cohort ?? 0 : 0, detail: movement.detail)
                let sum = sums[key, default: (0, 0)]
                sums[key] = (sum.members + movement.members, sum.dzd + movement.dzd)
            }
        }
        add(old.movements.map(\.negated), cohort: old.cohortMonth)
        add(new.movements, cohort: new.cohortMonth)
        let changed = sums.keys.filter { sums[$0]! != (0, 0) }.sorted()
        var statements: [SQLStatement] = []
        if !changed.isEmpty {
            statements.append(
                SQLStatement(
                    "\(insert) VALUES " + changed.map { _ in "(?, ?, ?, ?, ?, ?)" }.joined(separator: ", "),
                    changed.flatMap { key in
                        [.int(key.day), .text(key.kind), .int(key.cohort), .text(key.detail), .int(sums[key]!.members), .int(sums[key]!.dzd)]
                    }
                )
            )
        }
        let oldRenewals = Set(old.renewals)
        let newRenewals = Set(new.renewals)
        for renewal in oldRenewals.subtracting(newRenewals).sorted(by: Self.order) {
            statements.append(remindersRenewed(member: member, renewal, sign: -1))
        }
        for renewal in newRenewals.subtracting(oldRenewals).sorted(by: Self.order) {
            statements.append(remindersRenewed(member: member, renewal, sign: 1))
        }
        return statements
    }

    /// `sign` for each reminder delivered about the end `renewal` renews, at its purchase or in the window before.
    private static func remindersRenewed(member: UUID, _ renewal: SubscriptionFigures.Renewal, sign: Int64) -> SQLStatement {
        SQLStatement(
            """
            \(insert) SELECT \(ConsoleSummaries.daySQL("delivered_at")), 'reminder.renewed', 0, channel || ' ' || threshold, ?, 0 FROM reminders
            WHERE member_uuid = ? AND coverage_end = ? AND state = 'delivered' AND delivered_at <= ? AND delivered_at >= ?
            """,
            [
                .int(sign), .text(member.uuidString), .int(renewal.renewsEnd), .int(renewal.purchasedAt),
                .int(renewal.purchasedAt - SubscriptionFigures.reminderWindowDays * 86_400),
            ]
        )
    }

    /// What settling `reminders` leased by `owner` as delivered at `now` adds: each counted delivered, by channel
    /// and threshold (from the outcomes, as `reminder_days` counts them), and renewed where the member already renewed the end it was about at `now` or after (bought
    /// while the delivery was being settled). To run before the statement that settles them, on the rows as they
    /// were.
    static func remindersDelivered(_ reminders: [Reminder], owner: String, now: Int64) -> [SQLStatement] {
        guard !reminders.isEmpty else { return [] }
        var counts: [String: Int64] = [:]
        for reminder in reminders { counts["\(reminder.channel) \(reminder.threshold.rawValue)", default: 0] += 1 }
        let details = counts.keys.sorted()
        let day = ConsoleSummaries.day(now)
        let counted = SQLStatement(
            "\(insert) VALUES \(details.map { _ in "(?, 'reminder.delivered', 0, ?, ?, 0)" }.joined(separator: ", "))",
            details.flatMap { [.int(day), .text($0), .int(counts[$0]!)] }
        )
        let renewed = stride(from: 0, to: reminders.count, by: 500).map { start in
            let chunk = reminders[start..<min(start + 500, reminders.count)]
            return SQLStatement(
                """
                \(insert) SELECT ?, 'reminder.renewed', 0, r.channel || ' ' || r.threshold, 1, 0 FROM reminders r
                JOIN periods p ON p.member_uuid = r.member_uuid AND p.renews_end = r.coverage_end AND p.cancelled_at IS NULL
                WHERE r.lease_owner = ? AND r.id IN (\(chunk.map { _ in "?" }.joined(separator: ", ")))
                    AND p.purchased_at >= ? AND p.purchased_at <= ?
                """,
                [.int(day), .text(owner)] + chunk.map { .text($0.id) } + [.int(now), .int(now + SubscriptionFigures.reminderWindowDays * 86_400)]
            )
        }
        return [counted] + renewed
    }

    /// Takes the oldest appended changes, as ``ConsoleSummaries/takeSalesChanges``.
    static let takeChanges = """
        DELETE FROM subscription_day_changes WHERE seq IN (SELECT seq FROM subscription_day_changes ORDER BY seq LIMIT \(ConsoleSummaries.foldBatch))
        RETURNING day, kind, cohort, detail, members, dzd
        """

    /// Adds the taken changes to their rows, each row once, in key order.
    static func foldStatements(_ changes: [SQLRow]) throws -> [SQLStatement] {
        var sums: [FoldKey: (members: Int64, dzd: Int64)] = [:]
        for row in changes {
            let key = FoldKey(day: try row.int("day"), kind: try row.text("kind"), cohort: try row.int("cohort"), detail: try row.text("detail"))
            let sum = sums[key, default: (0, 0)]
            sums[key] = (sum.members + (try row.int("members")), sum.dzd + (try row.int("dzd")))
        }
        let keys = sums.keys.sorted()
        return stride(from: 0, to: keys.count, by: 500).map { start in
            let chunk = keys[start..<min(start + 500, keys.count)]
            return SQLStatement(
                """
                INSERT INTO subscription_days (day, kind, cohort, detail, members, dzd) VALUES \(chunk.map { _ in "(?, ?, ?, ?, ?, ?)" }.joined(separator: ", "))
                ON CONFLICT (day, kind, cohort, detail) DO UPDATE SET members = subscription_days.members + excluded.members,
                    dzd = subscription_days.dzd + excluded.dzd
                """,
                chunk.flatMap { key in
                    [.int(key.day), .text(key.kind), .int(key.cohort), .text(key.detail), .int(sums[key]!.members), .int(sums[key]!.dzd)]
                }
            )
        }
    }

    /// Every row computed again from the ledger's periods and the reminders (see ``SubscriptionFigures``).
    static func rebuildStatements(_ dialect: SQLDialect) -> [String] {
        ["DELETE FROM subscription_day_changes", "DELETE FROM subscription_days", fill(dialect)] + cohorts(dialect)
    }

    /// Each member's cohort (`members.cohort_month`, which a sale reads with the ledger's head) set again from the
    /// live periods where it differs (one pass over the periods; a ledger loaded with its cohorts writes no row).
    static func cohorts(_ dialect: SQLDialect) -> [String] {
        [
            """
            UPDATE members SET cohort_month = c.cohort FROM (
                SELECT member_uuid, \(dialect.algiersMonth("MIN(purchased_at)")) AS cohort FROM periods WHERE cancelled_at IS NULL GROUP BY member_uuid
            ) c
            WHERE c.member_uuid = members.uuid AND (members.cohort_month IS NULL OR members.cohort_month <> c.cohort)
            """,
            """
            UPDATE members SET cohort_month = NULL
            WHERE cohort_month IS NOT NULL AND NOT EXISTS (SELECT 1 FROM periods p WHERE p.member_uuid = members.uuid AND p.cancelled_at IS NULL)
            """,
        ]
    }

    /// The rows of every live period (each scanned once, its three rows made by a join with three numbers) and of
    /// the reminders delivered.
    static func fill(_ dialect: SQLDialect) -> String {
        let day = ConsoleSummaries.daySQL
        let grace = SubscriptionFigures.graceDays
        let window = SubscriptionFigures.reminderWindowDays * 86_400
        return """
            INSERT INTO subscription_days (day, kind, cohort, detail, members, dzd)
            SELECT day, kind, cohort, detail, SUM(members), SUM(dzd) FROM (
                SELECT CASE n.k WHEN 0 THEN \(day("c.purchased_at"))
                        WHEN 1 THEN (CASE WHEN c.class = 'renewed' THEN \(day("c.renewed_end")) ELSE \(day("c.starts_at")) END)
                        ELSE \(day("c.ends_at")) END AS day,
                    CASE n.k WHEN 0 THEN 'sale.' || c.class WHEN 1 THEN 'start.' || c.class ELSE 'end' END AS kind,
                    CASE n.k WHEN 0 THEN 0 ELSE \(dialect.algiersMonth("c.first_sale")) END AS cohort,
                    CASE n.k WHEN 0 THEN CAST(c.months AS TEXT) ELSE '' END AS detail,
                    CASE n.k WHEN 2 THEN -1 ELSE 1 END AS members,
                    CASE n.k WHEN 0 THEN c.amount_dzd WHEN 1 THEN c.amount_dzd / c.months ELSE -(c.amount_dzd / c.months) END AS dzd
                FROM (
                    SELECT p.*, CASE WHEN p.renewed_end IS NULL THEN 'new'
                        WHEN \(day("p.purchased_at")) <= \(day("p.renewed_end")) + \(grace) THEN 'renewed' ELSE 'returning' END AS class
                    FROM (
                        SELECT purchased_at, starts_at, ends_at, months, amount_dzd,
                            MAX(ends_at) OVER (PARTITION BY member_uuid ORDER BY seq ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS renewed_end,
                            MIN(purchased_at) OVER (PARTITION BY member_uuid) AS first_sale
                        FROM periods WHERE cancelled_at IS NULL
                    ) p
                ) c CROSS JOIN (SELECT 0 AS k UNION ALL SELECT 1 UNION ALL SELECT 2) n
                UNION ALL
                SELECT \(day("delivered_at")), 'reminder.delivered', 0, channel || ' ' || threshold, 1, 0 FROM reminders WHERE state = 'delivered'
                UNION ALL
                SELECT \(day("r.delivered_at")), 'reminder.renewed', 0, r.channel || ' ' || r.threshold, 1, 0 FROM reminders r
                JOIN periods p ON p.member_uuid = r.member_uuid AND p.renews_end = r.coverage_end AND p.cancelled_at IS NULL
                WHERE r.state = 'delivered' AND p.purchased_at >= r.delivered_at AND p.purchased_at <= r.delivered_at + \(window)
            ) movements GROUP BY day, kind, cohort, detail
            """
    }

    /// A row of `subscription_days`.
    private struct FoldKey: Hashable, Comparable {
        var day: Int64
        var kind: String
        var cohort: Int64
        var detail: String

        static func < (left: FoldKey, right: FoldKey) -> Bool {
            (left.day, left.kind, left.cohort, left.detail) < (right.day, right.kind, right.cohort, right.detail)
        }
    }

    private static func order(_ left: SubscriptionFigures.Renewal, _ right: SubscriptionFigures.Renewal) -> Bool {
        (left.renewsEnd, left.purchasedAt) < (right.renewsEnd, right.purchasedAt)
    }
}
