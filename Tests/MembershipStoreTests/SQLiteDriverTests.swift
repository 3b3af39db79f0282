import Foundation
import MembershipSQL
import MembershipSQLite
import TestSupport
import Testing

/// What the SQLite driver must get exactly right under the store.
@Suite("SQLite driver")
struct SQLiteDriverTests {
    @Test func textIsStoredByteForByteEvenWithANulInside() async throws {
        try await StoreKind.sqlite.withDatabase { database in
            try await database.write { db in try await db.execute("CREATE TABLE scratch (t TEXT NOT NULL)") }
            for text in ["Ahmed\u{0}Evil", "", "\u{0}", "أحمد"] {
                _ = try await database.writeStatement("INSERT INTO scratch (t) VALUES (?)", [.text(text)])
            }
            let rows = try await database.read { db in try await db.query("SELECT t FROM scratch ORDER BY rowid", []) }
            #expect(try rows.map { try $0.text("t") } == ["Ahmed\u{0}Evil", "", "\u{0}", "أحمد"])
            let cut = try await database.read { db in try await db.query("SELECT t FROM scratch WHERE t = ?", [.text("Ahmed\u{0}anything")]) }
            #expect(cut.isEmpty, "a look-up with a NUL inside matches nothing shorter")
        }
    }

    @Test func theDatabaseAndItsWALFilesAreReadableByTheOwnerOnly() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("ledger.sqlite")
        let previous = umask(0o022)  // the usual umask: files would otherwise be 0644
        defer { umask(previous) }
        let database = try await SQLiteDatabase.open(path: path)
        try await database.write { db in try await db.execute("CREATE TABLE scratch (t TEXT)") }
        _ = try await database.writeStatement("INSERT INTO scratch (t) VALUES (?)", [.text("Ahmed")])
        for file in [path, path + "-wal", path + "-shm"] {
            var status = stat()
            #expect(stat(file, &status) == 0, "\(file) exists")
            #expect(status.st_mode & 0o777 == 0o600, "\(file) has mode \(String(status.st_mode & 0o777, radix: 8))")
        }
        #expect(SQLiteDatabase.permissionProblem(path: path) == nil)
        chmod(path, 0o644)
        #expect(SQLiteDatabase.permissionProblem(path: path)?.contains("chmod 600 \(path)") == true)
        try await database.close()
    }
}
