/// Migration 016's own SQL, frozen as it landed: the backfill of the console's summaries from the ledger's rows.
/// It is never edited; the live rebuild (``ConsoleSummaries/rebuildStatements(_:)``) follows the schema as it
/// grows.
enum Migration016 {
    /// The summaries computed from the ledger's rows, as migration 016 computed them when it landed.
    static func summaryBackfill(_ dialect: SQLDialect) -> [String] {
        // Ties in time are broken by shop, counter and entry compared byte by byte, as Swift compares them.
        let bytes = dialect.bytewiseCollation
        return [
            "DELETE FROM sales_days",
            """
            INSERT INTO sales_days (day, vendor_id, sales, months, amount_dzd, cancelled)
            SELECT (purchased_at + 3600) / 86400, COALESCE(vendor_id, ''),
                SUM(CASE WHEN cancelled_at IS NULL THEN 1 ELSE 0 END), SUM(CASE WHEN cancelled_at IS NULL THEN months ELSE 0 END),
                SUM(CASE WHEN cancelled_at IS NULL THEN amount_dzd ELSE 0 END), SUM(CASE WHEN cancelled_at IS NULL THEN 0 ELSE 1 END)
            FROM periods GROUP BY (purchased_at + 3600) / 86400, COALESCE(vendor_id, '')
            """,
            "DELETE FROM coverage_days",
            """
            INSERT INTO coverage_days (day, shard, ending, renewed)
            SELECT day, 0, SUM(ending), SUM(renewed) FROM (
                SELECT (coverage_end + 3600) / 86400 AS day, 1 AS ending, 0 AS renewed FROM members WHERE coverage_end IS NOT NULL
                UNION ALL
                SELECT (renews_end + 3600) / 86400 AS day, 0 AS ending, 1 AS renewed FROM periods WHERE renews_end IS NOT NULL AND cancelled_at IS NULL
            ) changes GROUP BY day
            """,
            "DELETE FROM shared_sightings",
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
            WHERE p_vendor_id IS NOT NULL AND scanned_at - p_scanned_at <= 600
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
            SELECT (updated_at + 3600) / 86400, channel, state, COUNT(*) FROM reminders
            WHERE state IN ('delivered', 'failed', 'superseded', 'exhausted')
            GROUP BY (updated_at + 3600) / 86400, channel, state
            """,
        ]
    }
}
