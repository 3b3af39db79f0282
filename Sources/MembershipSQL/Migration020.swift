import PeezBasics

/// Migration 020's own SQL, frozen as it landed: each live period's `renews_end` set again from the periods
/// (the end of the member's live period before it; a cancellation used to leave it as it was when sold), and the
/// ends of paid time per day counted again from the repaired values.
enum Migration020 {
    static func statements() -> [String] {
        let day = { (column: String) in "(\(column) + \(AlgiersCalendar.utcOffset)) / 86400" }
        return [
            """
            UPDATE periods SET renews_end = repaired.renewed_end FROM (
                SELECT id, MAX(ends_at) OVER (PARTITION BY member_uuid ORDER BY seq ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS renewed_end
                FROM periods WHERE cancelled_at IS NULL
            ) repaired
            WHERE repaired.id = periods.id
                AND (periods.renews_end <> repaired.renewed_end OR (periods.renews_end IS NULL) <> (repaired.renewed_end IS NULL))
            """,
            "DELETE FROM coverage_day_changes",
            "DELETE FROM coverage_days",
            """
            INSERT INTO coverage_days (day, shard, ending, renewed)
            SELECT day, 0, SUM(ending), SUM(renewed) FROM (
                SELECT \(day("coverage_end")) AS day, 1 AS ending, 0 AS renewed FROM members WHERE coverage_end IS NOT NULL
                UNION ALL
                SELECT \(day("renews_end")) AS day, 0 AS ending, 1 AS renewed FROM periods WHERE renews_end IS NOT NULL AND cancelled_at IS NULL
            ) changes GROUP BY day
            """,
        ]
    }
}
