/// Migration 025's own SQL, frozen as it landed: members' online payments (a gateway's checkouts, each selling
/// one period once paid) and what the gateway said of them.
enum Migration025 {
    static func statements(_ dialect: SQLDialect) -> [String] {
        [
            """
            CREATE TABLE payments (
                id TEXT PRIMARY KEY, member_uuid TEXT NOT NULL REFERENCES members(uuid), months BIGINT NOT NULL,
                amount_dzd BIGINT NOT NULL, status TEXT NOT NULL, checkout_id TEXT UNIQUE, checkout_url TEXT,
                livemode BIGINT NOT NULL, key_scope TEXT NOT NULL, idempotency_key TEXT NOT NULL, request_hash TEXT NOT NULL,
                created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, period_id TEXT UNIQUE REFERENCES periods(id),
                paid_at BIGINT, next_check_at BIGINT NOT NULL, checks BIGINT NOT NULL,
                UNIQUE (key_scope, idempotency_key))
            """,
            "CREATE INDEX payments_due ON payments (next_check_at) WHERE status NOT IN ('creating', 'paid', 'mismatched')",
            "CREATE INDEX payments_by_member ON payments (member_uuid, created_at)",
            "CREATE INDEX payments_by_status ON payments (status, created_at)",
            """
            CREATE TABLE payment_events (
                seq \(dialect.serialPrimaryKey), at BIGINT NOT NULL, source TEXT NOT NULL, checkout_id TEXT NOT NULL,
                reported TEXT NOT NULL, payment_id TEXT, outcome TEXT NOT NULL, detail TEXT NOT NULL)
            """,
            "CREATE INDEX payment_events_attention ON payment_events (seq) WHERE outcome IN ('mismatch', 'unknown_checkout')",
            "CREATE INDEX payment_events_by_checkout ON payment_events (checkout_id)",
        ]
    }
}
