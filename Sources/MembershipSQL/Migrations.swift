import Foundation

/// The schema, as named migrations applied once each, in order, each in its own transaction.
/// A shipped migration is never edited: changes come as new ones.
enum Migrations {
    static func all(_ dialect: SQLDialect) -> [(name: String, statements: [String])] {
        let appendKey = dialect.serialPrimaryKey.replacingOccurrences(of: " AUTOINCREMENT", with: "")
        return [
            (
                "001_ledger",
                [
                    """
                    CREATE TABLE members (
                        uuid TEXT PRIMARY KEY, membership_id TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
                        phone TEXT NOT NULL UNIQUE, email TEXT NOT NULL UNIQUE, neighbourhood TEXT NOT NULL,
                        language TEXT NOT NULL, created_at BIGINT NOT NULL)
                    """,
                    "CREATE TABLE membership_sequences (day TEXT PRIMARY KEY, last_sequence BIGINT NOT NULL)",
                    """
                    CREATE TABLE vendors (
                        id TEXT PRIMARY KEY, name TEXT NOT NULL, category TEXT NOT NULL,
                        neighbourhood TEXT NOT NULL, created_at BIGINT NOT NULL)
                    """,
                    """
                    CREATE TABLE credentials (
                        id TEXT PRIMARY KEY, role TEXT NOT NULL, vendor_id TEXT REFERENCES vendors(id),
                        secret_hash TEXT NOT NULL UNIQUE, label TEXT NOT NULL, created_at BIGINT NOT NULL)
                    """,
                    """
                    CREATE TABLE periods (
                        id TEXT PRIMARY KEY, member_uuid TEXT NOT NULL REFERENCES members(uuid), seq BIGINT NOT NULL,
                        months BIGINT NOT NULL, amount_dzd BIGINT NOT NULL, source TEXT NOT NULL,
                        vendor_id TEXT REFERENCES vendors(id), purchased_at BIGINT NOT NULL, starts_at BIGINT NOT NULL,
                        ends_at BIGINT NOT NULL, cancelled_at BIGINT, UNIQUE (member_uuid, seq))
                    """,
                    "CREATE INDEX periods_vendor ON periods (vendor_id, purchased_at)",
                    """
                    CREATE TABLE cards (
                        member_uuid TEXT PRIMARY KEY REFERENCES members(uuid), token_id TEXT NOT NULL, token TEXT NOT NULL,
                        png \(dialect.blobType) NOT NULL, issued_at BIGINT NOT NULL, expires_at BIGINT NOT NULL,
                        coverage_end BIGINT)
                    """,
                    """
                    CREATE TABLE revocations (
                        seq \(dialect.serialPrimaryKey), token_id TEXT, membership_id TEXT, revoked_before BIGINT,
                        created_at BIGINT NOT NULL)
                    """,
                    """
                    CREATE TABLE idempotency_keys (
                        scope TEXT NOT NULL, key TEXT NOT NULL, request_hash TEXT NOT NULL, state TEXT NOT NULL,
                        response_status BIGINT, response_body \(dialect.blobType), created_at BIGINT NOT NULL,
                        PRIMARY KEY (scope, key))
                    """,
                ]
            ),
            (
                "002_member_versions",
                [
                    // Every change to what a member's card shows (a sale, a cancellation, a new name) takes the
                    // member's next version; two writers that read the same version cannot both commit.
                    """
                    CREATE TABLE member_changes (
                        member_uuid TEXT NOT NULL REFERENCES members(uuid), version BIGINT NOT NULL, kind TEXT NOT NULL,
                        changed_at BIGINT NOT NULL, PRIMARY KEY (member_uuid, version))
                    """,
                    // The member row carries its ledger's head, written with each change, so a sale reads one row.
                    "ALTER TABLE members ADD COLUMN ledger_version BIGINT NOT NULL DEFAULT 0",
                    "ALTER TABLE members ADD COLUMN coverage_end BIGINT",
                    "ALTER TABLE members ADD COLUMN last_period_seq BIGINT NOT NULL DEFAULT 0",
                    """
                    UPDATE members SET
                        coverage_end = (SELECT MAX(p.ends_at) FROM periods p WHERE p.member_uuid = members.uuid AND p.cancelled_at IS NULL),
                        last_period_seq = (SELECT COALESCE(MAX(p.seq), 0) FROM periods p WHERE p.member_uuid = members.uuid)
                    """,
                    // A stored card is current only while its member is still at the version it was made for.
                    "ALTER TABLE cards ADD COLUMN member_version BIGINT NOT NULL DEFAULT 0",
                ] + changeAnnouncement(dialect)
            ),
            (
                "003_revocation_versions",
                [
                    // Each change to the revocation list takes the list's next version, in commit order: a writer
                    // that read the same version fails on this key and tries again. Counters sync what is newer
                    // than the version they hold; rows recorded before this migration are version 0.
                    "CREATE TABLE revocation_changes (version BIGINT PRIMARY KEY, changed_at BIGINT NOT NULL)",
                    "ALTER TABLE revocations ADD COLUMN version BIGINT NOT NULL DEFAULT 0",
                    "CREATE INDEX revocations_by_version ON revocations (version)",
                ]
            ),
            (
                "004_counter_scans",
                [
                    // What counters report of their scan logs: one row per vendor, counter and log entry, so a
                    // report sent again stores nothing twice. Times are the counters' clocks.
                    """
                    CREATE TABLE counter_scans (
                        vendor_id TEXT NOT NULL REFERENCES vendors(id),
                        counter_id TEXT NOT NULL,
                        seq BIGINT NOT NULL,
                        scanned_at BIGINT NOT NULL,
                        verdict TEXT NOT NULL,
                        membership_id TEXT,
                        token_id TEXT,
                        offline BIGINT NOT NULL,
                        trust_age BIGINT NOT NULL,
                        received_at BIGINT NOT NULL,
                        PRIMARY KEY (vendor_id, counter_id, seq)
                    )
                    """,
                    "CREATE INDEX counter_scans_by_card ON counter_scans (token_id, scanned_at)",
                    "CREATE INDEX counter_scans_by_member ON counter_scans (membership_id, scanned_at)",
                    "CREATE INDEX counter_scans_by_time ON counter_scans (scanned_at)",
                ]
            ),
            (
                "005_reminders",
                [
                    // Renewal reminders, recorded before delivery: one per member, coverage end, threshold and
                    // channel. A worker leases open ones (leased_until) and settles each with its outcome.
                    """
                    CREATE TABLE reminders (
                        id TEXT PRIMARY KEY,
                        member_uuid TEXT NOT NULL REFERENCES members(uuid),
                        coverage_end BIGINT NOT NULL,
                        threshold TEXT NOT NULL,
                        channel TEXT NOT NULL,
                        state TEXT NOT NULL,
                        attempts BIGINT NOT NULL,
                        next_attempt_at BIGINT NOT NULL,
                        leased_until BIGINT,
                        lease_owner TEXT,
                        last_error TEXT,
                        created_at BIGINT NOT NULL,
                        updated_at BIGINT NOT NULL,
                        delivered_at BIGINT,
                        UNIQUE (member_uuid, coverage_end, threshold, channel)
                    )
                    """,
                    // Open reminders in the order they are due: leasing a batch reads the head of this index, no sort.
                    "CREATE INDEX reminders_due ON reminders (channel, next_attempt_at) WHERE state IN ('pending', 'unknown')",
                    "CREATE INDEX reminders_by_creation ON reminders (created_at)",
                    // The selection reads members by coverage end, a day's window at a time.
                    "CREATE INDEX members_by_coverage_end ON members (coverage_end)",
                ]
            ),
            // A reminder is updated twice after it is recorded (leased, then settled): room in each page lets
            // the lease, which changes no indexed column, leave every index alone. New pages only.
            ("006_reminders_fill_factor", dialect.hasFillFactor ? ["ALTER TABLE reminders SET (fillfactor = 60)"] : []),
            (
                "007_counter_scans_clock_wrong",
                [
                    // A scan given while the counter's clock was wrong (set back): its time is only the device's word.
                    "ALTER TABLE counter_scans ADD COLUMN clock_wrong BIGINT NOT NULL DEFAULT 0"
                ]
            ),
            // An answer is stored only for a sale, always 201 Created: the status was never written.
            ("008_idempotency_without_status", ["ALTER TABLE idempotency_keys DROP COLUMN response_status"]),
            // The public key of the member's phone (base64url), to which the member's cards are bound; null: none.
            ("009_member_device_key", ["ALTER TABLE members ADD COLUMN device_key TEXT"]),
            // A scan of a presentation: when the phone made it. A card's token id and this time name one
            // presentation, which seen at two counters was copied.
            ("010_counter_scans_presented_at", ["ALTER TABLE counter_scans ADD COLUMN presented_at BIGINT"]),
            (
                "011_wallet",
                [
                    // Apple Wallet: one pass per member (its serial number is the member's uuid), its token hashed, and
                    // its update outbox: the member's ledger version last pushed to its devices. A change that moves
                    // the member's version past it is an update to push, recorded in the change's own transaction;
                    // a worker leases it (leased_until), pushes, and settles it, or retries it later with backoff.
                    """
                    CREATE TABLE wallet_passes (
                        member_uuid TEXT PRIMARY KEY REFERENCES members(uuid), token_hash TEXT NOT NULL, issued_at BIGINT NOT NULL,
                        reminder TEXT, reminder_seq BIGINT NOT NULL DEFAULT 0, reminder_pushed_seq BIGINT NOT NULL DEFAULT 0,
                        pushed_version BIGINT NOT NULL DEFAULT 0, attempts BIGINT NOT NULL DEFAULT 0,
                        next_attempt_at BIGINT NOT NULL DEFAULT 0, leased_until BIGINT, lease_owner TEXT, last_error TEXT)
                    """,
                    // A device registered for a pass's updates: one row however often it registers.
                    """
                    CREATE TABLE wallet_registrations (
                        device_id TEXT NOT NULL, member_uuid TEXT NOT NULL REFERENCES wallet_passes(member_uuid),
                        push_token TEXT NOT NULL, registered_at BIGINT NOT NULL, PRIMARY KEY (device_id, member_uuid))
                    """,
                    "CREATE INDEX wallet_registrations_by_member ON wallet_registrations (member_uuid)",
                    // What devices log, the newest lines only.
                    "CREATE TABLE wallet_logs (seq \(dialect.serialPrimaryKey), received_at BIGINT NOT NULL, line TEXT NOT NULL)",
                    // Google Wallet: the members whose save link was issued, and the same outbox of updates.
                    """
                    CREATE TABLE google_wallet_objects (
                        member_uuid TEXT PRIMARY KEY REFERENCES members(uuid), issued_at BIGINT NOT NULL,
                        pushed_version BIGINT NOT NULL DEFAULT 0, attempts BIGINT NOT NULL DEFAULT 0,
                        next_attempt_at BIGINT NOT NULL DEFAULT 0, leased_until BIGINT, lease_owner TEXT, last_error TEXT)
                    """,
                ]
            ),
            (
                "012_card_revocation_points",
                [
                    // The newest `iat` of any card answered for the member (kept compare-and-set with the card),
                    // and the `revoked_before` of the member's last revoking change: a change revokes every card
                    // up to the first, and a card signed later is dated no earlier than the second.
                    "ALTER TABLE members ADD COLUMN last_card_issued_at BIGINT NOT NULL DEFAULT 0",
                    "ALTER TABLE members ADD COLUMN cards_valid_from BIGINT NOT NULL DEFAULT 0",
                    "UPDATE members SET last_card_issued_at = k.issued_at FROM cards k WHERE k.member_uuid = members.uuid",
                    """
                    UPDATE members SET cards_valid_from = r.revoked_before
                    FROM (SELECT membership_id, MAX(revoked_before) AS revoked_before FROM revocations
                          WHERE membership_id IS NOT NULL GROUP BY membership_id) r
                    WHERE r.membership_id = members.membership_id
                    """,
                ]
            ),
            (
                "013_wallet_pass_stamps",
                [
                    // The pass's token, kept: every download of a pass carries the one Wallet already holds (Apple:
                    // a pass's authentication token does not change).
                    "ALTER TABLE wallet_passes ADD COLUMN token TEXT",
                    // When what the pass shows last changed, in seconds but strictly increasing per pass (a second
                    // change in the same second is the next second): the device's `If-Modified-Since` and the
                    // serials' tag compare on it. Bumped in every change's own transaction, a reminder's included.
                    "ALTER TABLE wallet_passes ADD COLUMN modified_at BIGINT NOT NULL DEFAULT 0",
                    // The stamp every registered device has been told of; the stamp each device has been told of.
                    "ALTER TABLE wallet_passes ADD COLUMN pushed_stamp BIGINT NOT NULL DEFAULT 0",
                    "ALTER TABLE wallet_registrations ADD COLUMN pushed_stamp BIGINT NOT NULL DEFAULT 0",
                    """
                    UPDATE wallet_passes SET modified_at = COALESCE(
                        (SELECT MAX(c.changed_at) FROM member_changes c WHERE c.member_uuid = wallet_passes.member_uuid), issued_at)
                    """,
                    "UPDATE wallet_passes SET modified_at = issued_at WHERE modified_at < issued_at",
                    """
                    UPDATE wallet_passes SET pushed_stamp = modified_at
                    WHERE reminder_pushed_seq >= reminder_seq
                        AND pushed_version >= (SELECT m.ledger_version FROM members m WHERE m.uuid = wallet_passes.member_uuid)
                    """,
                    """
                    UPDATE wallet_registrations SET pushed_stamp =
                        (SELECT w.pushed_stamp FROM wallet_passes w WHERE w.member_uuid = wallet_registrations.member_uuid)
                    """,
                ]
            ),
            (
                "014_renewals",
                [
                    // When the member's latest sale was recorded, and the latest end of paid time a card shown to the
                    // member's phone carried (the backend's card routes, Wallet): a member paid until after the
                    // second is a renewal the counters must know of, until the phone is shown a card covering it.
                    "ALTER TABLE members ADD COLUMN last_sale_at BIGINT NOT NULL DEFAULT 0",
                    "ALTER TABLE members ADD COLUMN shown_paid_until BIGINT NOT NULL DEFAULT 0",
                    """
                    UPDATE members SET last_sale_at = p.purchased_at
                    FROM (SELECT member_uuid, MAX(purchased_at) AS purchased_at FROM periods WHERE cancelled_at IS NULL GROUP BY member_uuid) p
                    WHERE p.member_uuid = members.uuid
                    """,
                    // Cards drawn were shown; before this version, take every stored card as shown (no renewal listed).
                    "UPDATE members SET shown_paid_until = k.expires_at FROM cards k WHERE k.member_uuid = members.uuid",
                    "CREATE INDEX members_renewed ON members (last_sale_at) WHERE coverage_end > shown_paid_until",
                ]
            ),
            (
                "015_credential_lifecycle",
                [
                    // Each device its own credential: who made it, when it was last used (to the hour), when it was
                    // revoked, and when it stops by itself (a rotated secret's grace period).
                    "ALTER TABLE credentials ADD COLUMN created_by TEXT NOT NULL DEFAULT ''",
                    "ALTER TABLE credentials ADD COLUMN last_used_at BIGINT",
                    "ALTER TABLE credentials ADD COLUMN revoked_at BIGINT",
                    "ALTER TABLE credentials ADD COLUMN expires_at BIGINT",
                    "CREATE INDEX credentials_vendor ON credentials (vendor_id, created_at)",
                    // One-time enrolment codes, as hashes: used once, within their lifetime.
                    """
                    CREATE TABLE enrolment_codes (
                        code_hash TEXT PRIMARY KEY, vendor_id TEXT NOT NULL REFERENCES vendors(id), created_by TEXT NOT NULL,
                        created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, used_at BIGINT, credential_id TEXT,
                        withdrawn_at BIGINT)
                    """,
                    // The audit trail: appended to, never updated or deleted by the service.
                    """
                    CREATE TABLE audit_log (
                        seq \(dialect.serialPrimaryKey), at BIGINT NOT NULL, actor TEXT NOT NULL, actor_credential_id TEXT,
                        address TEXT NOT NULL, action TEXT NOT NULL, target TEXT NOT NULL, detail TEXT NOT NULL)
                    """,
                    // Sales sent with a credential no longer accepted, for the operator to make right.
                    """
                    CREATE TABLE refused_sales (
                        seq \(dialect.serialPrimaryKey), at BIGINT NOT NULL, credential_id TEXT NOT NULL, vendor_id TEXT,
                        idempotency_key TEXT NOT NULL, membership_id TEXT, months BIGINT, amount_dzd BIGINT, reason TEXT NOT NULL)
                    """,
                    // A sale retried under its key is one refused sale.
                    "CREATE UNIQUE INDEX refused_sales_once ON refused_sales (credential_id, idempotency_key)",
                ]
            ),
            (
                "016_console",
                [
                    // Summaries the console reads, kept by the write path in each change's own transaction (see
                    // ConsoleSummaries): sales per Algiers day and shop ('' for sales in the app), net of
                    // cancellations; per day, the members whose paid time ends then, and the sales that renewed a
                    // paid time ending then (split over a few shards, so concurrent sales seldom wait on one row);
                    // reminders and Wallet pushes per day by outcome.
                    """
                    CREATE TABLE sales_days (
                        day BIGINT NOT NULL, vendor_id TEXT NOT NULL, sales BIGINT NOT NULL, months BIGINT NOT NULL,
                        amount_dzd BIGINT NOT NULL, cancelled BIGINT NOT NULL, PRIMARY KEY (day, vendor_id))
                    """,
                    """
                    CREATE TABLE coverage_days (
                        day BIGINT NOT NULL, shard BIGINT NOT NULL, ending BIGINT NOT NULL, renewed BIGINT NOT NULL,
                        PRIMARY KEY (day, shard))
                    """,
                    """
                    CREATE TABLE reminder_days (
                        day BIGINT NOT NULL, channel TEXT NOT NULL, outcome TEXT NOT NULL, count BIGINT NOT NULL,
                        PRIMARY KEY (day, channel, outcome))
                    """,
                    """
                    CREATE TABLE push_days (
                        day BIGINT NOT NULL, platform TEXT NOT NULL, outcome TEXT NOT NULL, count BIGINT NOT NULL,
                        PRIMARY KEY (day, platform, outcome))
                    """,
                    // Two valid scans of one card at most ten minutes apart at two shops (or of one presentation at
                    // two counters): each scan, when reported, paired with the closest such scan already stored.
                    """
                    CREATE TABLE shared_sightings (
                        earlier_vendor_id TEXT NOT NULL, earlier_counter_id TEXT NOT NULL, earlier_seq BIGINT NOT NULL,
                        later_vendor_id TEXT NOT NULL, later_counter_id TEXT NOT NULL, later_seq BIGINT NOT NULL,
                        token_id TEXT NOT NULL, later_at BIGINT NOT NULL, seconds_apart BIGINT NOT NULL,
                        PRIMARY KEY (earlier_vendor_id, earlier_counter_id, earlier_seq, later_vendor_id, later_counter_id, later_seq))
                    """,
                    "CREATE INDEX shared_sightings_recent ON shared_sightings (later_at)",
                    // Wallet passes, devices and Google Wallet objects held, kept by the write path (sharded as
                    // coverage_days); passes whose change has not reached every device, and Google objects whose
                    // last update failed, through partial indexes (few rows each).
                    "CREATE TABLE wallet_tallies (kind TEXT NOT NULL, shard BIGINT NOT NULL, count BIGINT NOT NULL, PRIMARY KEY (kind, shard))",
                    "CREATE INDEX wallet_passes_waiting ON wallet_passes (modified_at) WHERE modified_at > pushed_stamp",
                    "CREATE INDEX google_wallet_objects_failing ON google_wallet_objects (member_uuid) WHERE last_error IS NOT NULL",
                    // The end of paid time a sale renewed (the member's coverage end before it; null: a first sale),
                    // so that cancelling the sale takes its renewal back.
                    "ALTER TABLE periods ADD COLUMN renews_end BIGINT",
                    """
                    UPDATE periods SET renews_end = (
                        SELECT MAX(q.ends_at) FROM periods q
                        WHERE q.member_uuid = periods.member_uuid AND q.seq < periods.seq AND q.cancelled_at IS NULL)
                    WHERE cancelled_at IS NULL
                    """,
                    // When a vendor device last fetched its counter bundle (to the minute).
                    "ALTER TABLE credentials ADD COLUMN last_sync_at BIGINT",
                    // Members found by the start of their name, whatever its case; a member's revocations.
                    "CREATE INDEX members_by_name ON members ((lower(name))\(dialect.bytewiseCollation))",
                    "CREATE INDEX revocations_by_member ON revocations (membership_id)",
                    // One-time sign-in links to the console and the sessions they opened, as hashes.
                    """
                    CREATE TABLE console_links (
                        code_hash TEXT PRIMARY KEY, actor TEXT NOT NULL, actor_credential_id TEXT, created_at BIGINT NOT NULL,
                        expires_at BIGINT NOT NULL, used_at BIGINT)
                    """,
                    """
                    CREATE TABLE console_sessions (
                        id_hash TEXT PRIMARY KEY, actor TEXT NOT NULL, actor_credential_id TEXT, address TEXT NOT NULL,
                        created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, ended_at BIGINT)
                    """,
                ] + Migration016.summaryBackfill(dialect)
            ),
            (
                "017_credential_guards",
                [
                    // The credential a rotation replaced (revoking it revokes its successors), the credential that
                    // made an enrolment code (the code dies with it), and when a vendor's access was cut off (no
                    // code made before then enrols anything).
                    "ALTER TABLE credentials ADD COLUMN replaces_id TEXT",
                    "CREATE INDEX credentials_replacing ON credentials (replaces_id)",
                    "ALTER TABLE enrolment_codes ADD COLUMN created_by_credential_id TEXT",
                    "CREATE INDEX enrolment_codes_by_creator ON enrolment_codes (created_by_credential_id)",
                    "ALTER TABLE vendors ADD COLUMN cut_off_at BIGINT",
                    // The name of the device a code enrols, given when the code is made.
                    "ALTER TABLE enrolment_codes ADD COLUMN label TEXT",
                ] + credentialChangeAnnouncement(dialect)
            ),
            (
                "018_summary_changes",
                [
                    // A sale or cancellation appends its change to a day's summaries here instead of updating the
                    // day's row, which every sale of that day and shop would wait on; `peez serve` folds them into
                    // sales_days and coverage_days every few seconds, and readers sum both. Their numbers need no
                    // order that survives a fold: on SQLite a plain rowid, without AUTOINCREMENT's write per row.
                    """
                    CREATE TABLE sales_day_changes (
                        seq \(appendKey), day BIGINT NOT NULL, vendor_id TEXT NOT NULL, sales BIGINT NOT NULL,
                        months BIGINT NOT NULL, amount_dzd BIGINT NOT NULL, cancelled BIGINT NOT NULL)
                    """,
                    """
                    CREATE TABLE coverage_day_changes (
                        seq \(appendKey), day BIGINT NOT NULL, ending BIGINT NOT NULL, renewed BIGINT NOT NULL)
                    """,
                ]
            ),
            (
                "019_member_search",
                [
                    // What a member is found by (name folded, phone as written in Algeria, membership id; see
                    // MemberSearchKey): its start through a b-tree compared byte by byte, any part of it through
                    // an index of trigrams. Rows written before this migration are given theirs by
                    // SQLMembershipStore.fillSearchKeys at start ('' until then).
                    "ALTER TABLE members ADD COLUMN search_key TEXT NOT NULL DEFAULT ''",
                    "DROP INDEX members_by_name",
                    "CREATE INDEX members_by_search_key ON members (search_key\(dialect.bytewiseCollation))",
                ] + partSearchIndex(dialect)
            ),
            ("020_renewed_ends", Migration020.statements()),
            (
                "021_shared_sightings_by_card",
                // The anomalies panel's closest pair of each card: a card's pairs in one range.
                ["CREATE INDEX shared_sightings_by_card ON shared_sightings (token_id, seconds_apart, later_at)"]
            ),
            (
                "022_audit_detail_values",
                // An entry's detail fact by fact (a JSON array of {"name", "value"}), for the console to say in its
                // reader's language; null for entries written before.
                ["ALTER TABLE audit_log ADD COLUMN detail_values TEXT"]
            ),
            (
                "023_sighting_queue",
                [
                    // The valid scans of a card stored and not yet paired (shared_sightings): a report appends them
                    // here, and `peez serve` pairs them every few seconds (each taken by one pairer only), as the
                    // readers of the pairs do first. A report no longer waits on other reports of its cards.
                    """
                    CREATE TABLE sighting_queue (
                        seq \(appendKey), vendor_id TEXT NOT NULL, counter_id TEXT NOT NULL, scan_seq BIGINT NOT NULL,
                        token_id TEXT NOT NULL, scanned_at BIGINT NOT NULL, presented_at BIGINT)
                    """
                ]
            ),
            ("024_subscription_days", Migration024.statements(dialect, appendKey: appendKey)),
            ("025_payments", Migration025.statements(dialect)),
            ("026_shop_accounts", Migration026.statements(dialect, appendKey: appendKey)),
        ]
    }

    /// Migration 019's index of the parts of the members' search keys.
    private static func partSearchIndex(_ dialect: SQLDialect) -> [String] {
        switch dialect.partSearch {
        case .trigramIndex:
            return [
                "CREATE EXTENSION IF NOT EXISTS pg_trgm",
                "CREATE INDEX members_search_parts ON members USING gin (search_key gin_trgm_ops)",
            ]
        case .trigramTable:
            // A table of its own (its rowids are its own: VACUUM may renumber those of members), kept by triggers.
            // A key is removed by looking it up whole (every key is longer than a trigram) and the member's uuid.
            return [
                "CREATE VIRTUAL TABLE member_search USING fts5(search_key, member_uuid UNINDEXED, tokenize = 'trigram')",
                """
                CREATE TRIGGER members_search_insert AFTER INSERT ON members WHEN NEW.search_key <> '' BEGIN
                    INSERT INTO member_search (search_key, member_uuid) VALUES (NEW.search_key, NEW.uuid);
                END
                """,
                """
                CREATE TRIGGER members_search_fill AFTER UPDATE OF search_key ON members
                WHEN OLD.search_key = '' AND NEW.search_key <> '' BEGIN
                    INSERT INTO member_search (search_key, member_uuid) VALUES (NEW.search_key, NEW.uuid);
                END
                """,
                """
                CREATE TRIGGER members_search_change AFTER UPDATE OF search_key ON members
                WHEN OLD.search_key <> '' AND NEW.search_key <> OLD.search_key BEGIN
                    DELETE FROM member_search
                        WHERE member_search MATCH '"' || replace(OLD.search_key, '"', '""') || '"' AND member_uuid = OLD.uuid;
                    INSERT INTO member_search (search_key, member_uuid) VALUES (NEW.search_key, NEW.uuid);
                END
                """,
            ]
        }
    }

    /// Where the database can announce changes, a trigger announces each credential revoked or given an end, on
    /// the member-change channel as `credential:<secret hash>`, so every instance forgets it at once.
    private static func credentialChangeAnnouncement(_ dialect: SQLDialect) -> [String] {
        guard let channel = dialect.memberChangeChannel else { return [] }
        return [
            """
            CREATE FUNCTION peez_announce_credential_change() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_notify('\(channel)', 'credential:' || NEW.secret_hash);
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER credential_changes_announce AFTER UPDATE OF revoked_at, expires_at ON credentials
                FOR EACH ROW WHEN (NEW.revoked_at IS DISTINCT FROM OLD.revoked_at OR NEW.expires_at IS DISTINCT FROM OLD.expires_at)
                EXECUTE FUNCTION peez_announce_credential_change()
            """,
        ]
    }

    /// Where the database can announce changes, a trigger announces each one at commit.
    private static func changeAnnouncement(_ dialect: SQLDialect) -> [String] {
        guard let channel = dialect.memberChangeChannel else { return [] }
        return [
            """
            CREATE FUNCTION peez_announce_member_change() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_notify('\(channel)', NEW.member_uuid);
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER member_changes_announce AFTER INSERT ON member_changes
                FOR EACH ROW EXECUTE FUNCTION peez_announce_member_change()
            """,
        ]
    }

    /// Applies the migrations not yet recorded in `schema_migrations`.
    /// Instances starting together take turns: each transaction first takes the database's migration lock
    /// (where it has one; SQLite's write transactions already exclude each other).
    static func apply(to database: any SQLDatabase, now: Int64) async throws {
        let lock = database.dialect.migrationLockStatement
        try await database.write { db in
            if let lock { try await db.execute(lock) }
            try await db.execute("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)")
        }
        for migration in all(database.dialect) {
            try await database.write { db in
                if let lock { try await db.execute(lock) }
                let applied = try await db.query("SELECT name FROM schema_migrations WHERE name = ?", [.text(migration.name)])
                guard applied.isEmpty else { return }
                for statement in migration.statements { try await db.execute(statement) }
                try await db.execute("INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)", [.text(migration.name), .int(now)])
            }
        }
    }
}
