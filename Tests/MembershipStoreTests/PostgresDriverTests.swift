import Foundation
import MembershipPostgres
import MembershipSQL
import Testing

/// What the PostgreSQL driver adds under the store: prepared statements and one-round-trip batches.
@Suite("PostgreSQL driver", .enabled(if: StoreKind.available.contains(.postgres)))
struct PostgresDriverTests {
    @Test func aStatementPreparedBeforeASchemaChangeIsPreparedAfresh() async throws {
        try await StoreKind.withPostgresInstances(1) { stores in
            let database = stores[0].database
            try await database.write { db in try await db.execute("CREATE TABLE scratch (a BIGINT)") }
            _ = try await database.writeStatement("INSERT INTO scratch (a) VALUES (?)", [.int(7)])
            for _ in 0..<4 { #expect(try await database.read { db in try await db.query("SELECT * FROM scratch", []) }.count == 1) }
            // Another instance's migration changes what `*` means.
            try await database.write { db in try await db.execute("ALTER TABLE scratch ADD COLUMN b TEXT") }
            for _ in 0..<4 {
                let rows = try await database.read { db in try await db.query("SELECT * FROM scratch", []) }
                #expect(try rows.first?.int("a") == 7 && rows.first?["b"] == .null)
            }
        }
    }

    @Test func instancesStartingTogetherMigrateOnce() async throws {
        try await StoreKind.withPostgresDatabases(4) { databases in
            try await withThrowingTaskGroup(of: Void.self) { starts in
                for database in databases { starts.addTask { _ = try await SQLMembershipStore(database: database, now: Sample.migratedAt) } }
                try await starts.waitForAll()
            }
            let applied = try await databases[0].read { db in try await db.query("SELECT name FROM schema_migrations ORDER BY name", []) }
            #expect(
                try applied.map { try $0.text("name") } == [
                    "001_ledger", "002_member_versions", "003_revocation_versions", "004_counter_scans", "005_reminders",
                    "006_reminders_fill_factor", "007_counter_scans_clock_wrong", "008_idempotency_without_status",
                    "009_member_device_key", "010_counter_scans_presented_at", "011_wallet", "012_card_revocation_points",
                    "013_wallet_pass_stamps", "014_renewals", "015_credential_lifecycle", "016_console", "017_credential_guards",
                    "018_summary_changes", "019_member_search", "020_renewed_ends", "021_shared_sightings_by_card", "022_audit_detail_values",
                    "023_sighting_queue", "024_subscription_days", "025_payments", "026_shop_accounts",
                ]
            )
            let options = try await databases[0].read { db in
                try await db.query("SELECT array_to_string(reloptions, ',') AS options FROM pg_class WHERE relname = 'reminders'", [])
            }
            #expect(try options.first?.text("options") == "fillfactor=60")
        }
    }

    @Test func manyRowsGoInByCopyWithEveryTextIntact() async throws {
        try await StoreKind.withPostgresInstances(1) { stores in
            let database = stores[0].database
            try await database.write { db in try await db.execute("CREATE TABLE copied (a BIGINT, b TEXT, c BYTEA)") }
            let awkward = ["tab\there", "line\nbreak", "back\\slash \\N", "\\N", "carriage\rreturn", "ends with \\", "عربي — é", ""]
            let rows: [[SQLValue]] = (0..<5_000).map { index in
                [
                    .int(Int64(index)), index % 9 == 8 ? .null : .text(awkward[index % 9 == 8 ? 0 : index % awkward.count]),
                    .blob([0, 92, UInt8(index % 256)]),
                ]
            }
            try await database.write { db in try await db.insertRows(into: "copied", columns: ["a", "b", "c"], rows) }
            let back = try await database.read { db in try await db.query("SELECT a, b, c FROM copied ORDER BY a", []) }
            #expect(back.count == rows.count)
            for (row, expected) in zip(back, rows) where row.values != expected {
                Issue.record("row \(try row.int("a")) came back as \(row.values), not \(expected)")
                break
            }
        }
    }

    @Test func aBatchIsAllOrNothing() async throws {
        try await StoreKind.withPostgresInstances(1) { stores in
            let database = stores[0].database
            try await database.write { db in try await db.execute("CREATE TABLE scratch (a BIGINT PRIMARY KEY, b BYTEA)") }
            try await database.writeBatch([
                SQLStatement("INSERT INTO scratch (a, b) VALUES (?, ?)", [.int(1), .blob([0, 255])]),
                SQLStatement("INSERT INTO scratch (a, b) VALUES (?, ?)", [.int(2), .null]),
            ])
            await #expect(throws: SQLError.uniqueViolation("scratch_pkey")) {
                try await database.writeBatch([
                    SQLStatement("INSERT INTO scratch (a) VALUES (?)", [.int(3)]),
                    SQLStatement("INSERT INTO scratch (a) VALUES (?)", [.int(1)]),
                ])
            }
            let rows = try await database.read { db in try await db.query("SELECT a, b FROM scratch ORDER BY a", []) }
            #expect(try rows.map { try $0.int("a") } == [1, 2], "the failed batch wrote nothing")
            #expect(try rows[0].blob("b") == [0, 255])
        }
    }

    @Test func aWriteAndAReadShareOneRoundTrip() async throws {
        try await StoreKind.withPostgresInstances(1) { stores in
            let database = stores[0].database
            try await database.write { db in try await db.execute("CREATE TABLE scratch (a BIGINT PRIMARY KEY)") }
            let insert = SQLStatement("INSERT INTO scratch (a) VALUES (?) ON CONFLICT DO NOTHING", [.int(1)])
            let first = try await database.writeThenRead(insert, durable: false, SQLStatement("SELECT a FROM scratch WHERE a = ?", [.int(1)]))
            #expect(first.written == 1 && first.rows.isEmpty, "the read sees the table as it was before the write")
            let again = try await database.writeThenRead(insert, durable: true, SQLStatement("SELECT a FROM scratch WHERE a = ?", [.int(1)]))
            #expect(again.written == 0 && again.rows.count == 1)
        }
    }

    @Test func aTransactionThatFailedInsideIsNotReportedCommitted() async throws {
        try await StoreKind.withPostgresInstances(1) { stores in
            let database = stores[0].database
            try await database.write { db in try await db.execute("CREATE TABLE scratch (a BIGINT PRIMARY KEY)") }
            // A statement fails and its error is swallowed: PostgreSQL then answers COMMIT with ROLLBACK, no error.
            await #expect(throws: SQLError.notCommitted("ROLLBACK")) {
                try await database.write { db in
                    try await db.execute("INSERT INTO scratch (a) VALUES (?)", [.int(1)])
                    _ = try? await db.query("SELECT 1 / 0", [])
                    return 1
                }
            }
            #expect(try await database.read { db in try await db.query("SELECT a FROM scratch", []) }.isEmpty)
        }
    }
}
