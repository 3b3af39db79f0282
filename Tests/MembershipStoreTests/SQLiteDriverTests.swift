import Foundation
import MembershipSQL
import MembershipSQLite
import Synchronization
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

    /// A write (which waits for its fsync) and a report (which may scan for seconds) run on threads of their own:
    /// run inline, a long one of each would hold both threads of a two-core machine's cooperative pool, and
    /// nothing else (a sale, `/health`) would run until one ended.
    @Test func longWritesAndReportsLeaveTheCooperativeThreadsFree() async throws {
        try await StoreKind.sqlite.withDatabase { database in
            let long = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000000) SELECT count(*) AS c FROM n"
            let finished = FinishedStatements()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<max(2, ProcessInfo.processInfo.activeProcessorCount) {
                    group.addTask {
                        let rows =
                            index % 2 == 0
                            ? try await database.write { db in try await db.query(long, []) }
                            : try await database.readReport { db in try await db.query(long, []) }
                        #expect(try rows.first?.int("c") == 10_000_000)
                        finished.count.add(1, ordering: .relaxed)
                    }
                }
                try await Task.sleep(for: .milliseconds(200))
                #expect(finished.count.load(ordering: .relaxed) == 0, "this task ran again only once a long statement had ended")
                try await group.waitForAll()
            }
        }
    }

    /// Linux keeps a nice value per thread: the report connection's thread must be the one at 10, and no other.
    @Test func reportsRunOnAThreadOfLowerPriority() async throws {
        try await StoreKind.sqlite.withDatabase { database in
            _ = try await database.readReport { db in try await db.query("SELECT 1", []) }
            let threads = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").compactMap { task -> (name: String, nice: Int)? in
                guard let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                    let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
                else { return nil }
                // Fields after the name: state is field 3, nice is field 19 (proc(5)).
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                return (String(stat[stat.index(after: open)..<close]), Int(fields[16]) ?? 0)
            }
            let reports = threads.filter { $0.name == "peez.sqlite.rep" }
            #expect(!reports.isEmpty && reports.allSatisfy { $0.nice == 10 }, "\(threads)")
            #expect(threads.filter { $0.name.hasPrefix("peez.sqlite.wri") || $0.name.hasPrefix("peez.sqlite.rea") }.allSatisfy { $0.nice == 0 })
        }
    }

    /// Reads lend the reader connections out: more reads at once than readers all finish, each having its
    /// connection to itself for as long as it holds it (a connection's TEMP table is its own: a row another read
    /// left in it would show a connection lent twice), and as many run at once as there are readers.
    @Test func moreReadsThanReadersEachHaveAConnectionToThemselvesAndAllFinish() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try await SQLiteDatabase.open(path: folder.file("ledger.sqlite"), readerCount: 3)
        let atOnce = ReadsAtOnce()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for read in 0..<40 {
                group.addTask {
                    try await database.read { db in
                        atOnce.most.max(atOnce.running.add(1, ordering: .relaxed).newValue, ordering: .relaxed)
                        _ = try await db.query("CREATE TEMP TABLE IF NOT EXISTS lent (read INTEGER NOT NULL)", [])
                        _ = try await db.query("INSERT INTO lent (read) VALUES (?)", [.int(Int64(read))])
                        try await Task.sleep(for: .milliseconds(5))
                        let held = try await db.query("SELECT read FROM lent", []).map { try $0.int("read") }
                        _ = try await db.query("DELETE FROM lent", [])
                        atOnce.running.subtract(1, ordering: .relaxed)
                        #expect(held == [Int64(read)], "the reader was lent to another read at the same time")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(atOnce.most.load(ordering: .relaxed) == 3, "three readers: three reads at once while the others waited")
        try await database.close()
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

private final class FinishedStatements: Sendable {
    let count = Atomic<Int>(0)
}

private final class ReadsAtOnce: Sendable {
    let running = Atomic<Int>(0)
    let most = Atomic<Int>(0)
}
