import PeezBasics

/// Migration 024's own SQL, frozen as it landed: the subscription figures' summary (see `SubscriptionSummaries`),
/// its appended changes, and its rows computed from the ledger's live periods and the reminders delivered; each
/// member's cohort (the month of their earliest live sale), which a sale reads with the ledger's head.
enum Migration024 {
    static func statements(_ dialect: SQLDialect, appendKey: String) -> [String] {
        let day = { (column: String) in "(\(column) + \(AlgiersCalendar.utcOffset)) / 86400" }
        let month = { (column: String) in
            switch dialect.monthFunction {
            case .strftime: "CAST(strftime('%Y%m', (\(column)) + 3600, 'unixepoch') AS INTEGER)"
            case .toChar: "CAST(to_char(to_timestamp((\(column)) + 3600) AT TIME ZONE 'UTC', 'YYYYMM') AS BIGINT)"
            }
        }
        let grace = 7
        let window = 7 * 86_400
        return [
            "ALTER TABLE members ADD COLUMN cohort_month BIGINT",
            """
            UPDATE members SET cohort_month = \(month("(SELECT MIN(p.purchased_at) FROM periods p WHERE p.member_uuid = members.uuid AND p.cancelled_at IS NULL)"))
            WHERE EXISTS (SELECT 1 FROM periods p WHERE p.member_uuid = members.uuid AND p.cancelled_at IS NULL)
            """,
            """
            CREATE TABLE subscription_days (
                day BIGINT NOT NULL, kind TEXT NOT NULL, cohort BIGINT NOT NULL, detail TEXT NOT NULL, members BIGINT NOT NULL,
                dzd BIGINT NOT NULL, PRIMARY KEY (day, kind, cohort, detail))
            """,
            """
            CREATE TABLE subscription_day_changes (
                seq \(appendKey), day BIGINT NOT NULL, kind TEXT NOT NULL, cohort BIGINT NOT NULL, detail TEXT NOT NULL,
                members BIGINT NOT NULL, dzd BIGINT NOT NULL)
            """,
            """
            INSERT INTO subscription_days (day, kind, cohort, detail, members, dzd)
            SELECT day, kind, cohort, detail, SUM(members), SUM(dzd) FROM (
                SELECT CASE n.k WHEN 0 THEN \(day("c.purchased_at"))
                        WHEN 1 THEN (CASE WHEN c.class = 'renewed' THEN \(day("c.renewed_end")) ELSE \(day("c.starts_at")) END)
                        ELSE \(day("c.ends_at")) END AS day,
                    CASE n.k WHEN 0 THEN 'sale.' || c.class WHEN 1 THEN 'start.' || c.class ELSE 'end' END AS kind,
                    CASE n.k WHEN 0 THEN 0 ELSE \(month("c.first_sale")) END AS cohort,
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
            """,
        ]
    }
}
