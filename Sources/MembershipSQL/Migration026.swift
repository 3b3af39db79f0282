import PeezBasics

/// Migration 026's own SQL, frozen as it landed: the shops' cash accounts (see `ShopAccountRows`). Entries for
/// the sales and cancellations already in the ledger are written by it, once each (a sale or cancellation that
/// has its entry is skipped), then the days' rows are computed from the entries and the stretches' from the days: applying its statements again
/// changes nothing.
enum Migration026 {
    static func statements(_ dialect: SQLDialect, appendKey: String) -> [String] {
        let day = { (column: String) in "(\(column) + \(AlgiersCalendar.utcOffset)) / 86400" }
        let figures = """
            CASE kind WHEN 'sale' THEN 1 ELSE 0 END AS sales, CASE kind WHEN 'sale' THEN amount_dzd ELSE 0 END AS sales_dzd,
            CASE kind WHEN 'cancellation' THEN 1 ELSE 0 END AS cancellations,
            CASE kind WHEN 'cancellation' THEN -amount_dzd ELSE 0 END AS cancellations_dzd, commission_dzd,
            CASE kind WHEN 'remittance' THEN -amount_dzd ELSE 0 END AS remitted_dzd,
            CASE WHEN kind IN ('adjustment', 'reversal') THEN amount_dzd ELSE 0 END AS adjusted_dzd
            """
        return [
            // Append-only: rows are inserted, never updated or deleted. A sale and its cancellation each have one
            // entry (period_id, kind); an entry is reversed at most once (reverses_seq). No foreign key to the
            // shop or the period: a sale's entry is written from its period, in its transaction, and a key checked
            // on each sale would lock the shop's row in PostgreSQL for every sale at that shop.
            """
            CREATE TABLE shop_entries (
                seq \(dialect.serialPrimaryKey), vendor_id TEXT NOT NULL, kind TEXT NOT NULL,
                recorded_at BIGINT NOT NULL, day BIGINT NOT NULL, amount_dzd BIGINT NOT NULL, commission_dzd BIGINT NOT NULL,
                months BIGINT NOT NULL, period_id TEXT, member_uuid TEXT, method TEXT, reference TEXT,
                received_by TEXT, reason TEXT, reverses_seq BIGINT UNIQUE REFERENCES shop_entries(seq), recorded_by TEXT,
                UNIQUE (period_id, kind))
            """,
            "CREATE INDEX shop_entries_by_vendor ON shop_entries (vendor_id, day, seq)",
            // Each shop's figures per Algiers day, and the changes appended to them by each entry's transaction
            // (folded in now and then, as the console's summaries are): a shop's sales never wait for each other.
            """
            CREATE TABLE shop_days (
                vendor_id TEXT NOT NULL, day BIGINT NOT NULL, sales BIGINT NOT NULL, sales_dzd BIGINT NOT NULL,
                cancellations BIGINT NOT NULL, cancellations_dzd BIGINT NOT NULL, commission_dzd BIGINT NOT NULL,
                remitted_dzd BIGINT NOT NULL, adjusted_dzd BIGINT NOT NULL, PRIMARY KEY (vendor_id, day))
            """,
            """
            CREATE TABLE shop_day_changes (
                seq \(appendKey), vendor_id TEXT NOT NULL, day BIGINT NOT NULL, sales BIGINT NOT NULL, sales_dzd BIGINT NOT NULL,
                cancellations BIGINT NOT NULL, cancellations_dzd BIGINT NOT NULL, commission_dzd BIGINT NOT NULL,
                remitted_dzd BIGINT NOT NULL, adjusted_dzd BIGINT NOT NULL)
            """,
            // Each shop's figures summed per stretch of 32 days (the day divided by 32), kept with its days by every
            // fold: every balance, and where its oldest unremitted cash lies, is read from these few rows.
            """
            CREATE TABLE shop_stretches (
                vendor_id TEXT NOT NULL, stretch BIGINT NOT NULL, sales BIGINT NOT NULL, sales_dzd BIGINT NOT NULL,
                cancellations BIGINT NOT NULL, cancellations_dzd BIGINT NOT NULL, commission_dzd BIGINT NOT NULL,
                remitted_dzd BIGINT NOT NULL, adjusted_dzd BIGINT NOT NULL, PRIMARY KEY (vendor_id, stretch))
            """,
            // What a shop keeps of each sale from a day on: a share (basis points) or dinars per month sold.
            """
            CREATE TABLE shop_commissions (
                vendor_id TEXT NOT NULL REFERENCES vendors(id), from_day BIGINT NOT NULL, basis_points BIGINT NOT NULL,
                per_month_dzd BIGINT NOT NULL, set_at BIGINT NOT NULL, set_by TEXT NOT NULL, PRIMARY KEY (vendor_id, from_day))
            """,
            // One row per shop the team has recorded on: each team entry updates it first, so two of one shop take
            // turns and each reads the balance the other left.
            "CREATE TABLE shop_accounts (vendor_id TEXT PRIMARY KEY REFERENCES vendors(id), team_entries BIGINT NOT NULL)",
            // The balance past which the team wants a shop shown (one row, or none: no limit).
            "CREATE TABLE shop_balance_limit (one BIGINT PRIMARY KEY CHECK (one = 1), limit_dzd BIGINT NOT NULL CHECK (limit_dzd >= 0))",
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
            "DELETE FROM shop_day_changes",
            "DELETE FROM shop_days",
            """
            INSERT INTO shop_days (vendor_id, day, sales, sales_dzd, cancellations, cancellations_dzd, commission_dzd, remitted_dzd, adjusted_dzd)
            SELECT vendor_id, day, SUM(sales), SUM(sales_dzd), SUM(cancellations), SUM(cancellations_dzd), SUM(commission_dzd),
                SUM(remitted_dzd), SUM(adjusted_dzd)
            FROM (SELECT vendor_id, day, \(figures) FROM shop_entries) e
            GROUP BY vendor_id, day
            """,
            "DELETE FROM shop_stretches",
            """
            INSERT INTO shop_stretches (vendor_id, stretch, sales, sales_dzd, cancellations, cancellations_dzd, commission_dzd, remitted_dzd, adjusted_dzd)
            SELECT vendor_id, day / 32, SUM(sales), SUM(sales_dzd), SUM(cancellations), SUM(cancellations_dzd), SUM(commission_dzd),
                SUM(remitted_dzd), SUM(adjusted_dzd)
            FROM shop_days GROUP BY vendor_id, day / 32
            """,
        ]
    }
}
