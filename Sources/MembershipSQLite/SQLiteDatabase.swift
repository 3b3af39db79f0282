import CPeezSQLite
import Foundation
public import MembershipSQL
public import ServiceLifecycle
import Synchronization

/// The embedded store's database: one SQLite file in WAL mode, with one writer connection (write transactions
/// take turns behind an async lock and start with `BEGIN IMMEDIATE`) and a few reader connections that read the
/// last committed state while a write is under way.
///
/// What blocks runs on a thread of its own (see ``ConnectionThread``), never on the threads that serve requests:
/// the writer's statements (a commit waits for its fsync) and reports (a report may scan for seconds, on a thread
/// of lower priority). A read by key runs inline on the reader connection it takes: it finds its pages in the
/// connection's cache in microseconds, and handing it to another thread and back would cost more than the read
/// (a fifth of a warm `card.png` on two cores, measured).
///
/// Changes committed by any process are heard by ``run()`` (see ``SQLiteChangeWatch``), so a serving store keeps
/// current cards in memory while it runs.
///
/// Durability: `synchronous = FULL`, so a transaction acknowledged as committed is on disk, through a process
/// kill or a power loss. Foreign keys are enforced; `busy_timeout` covers another process holding the file.
/// Each connection may cache up to 64 MiB of pages (SQLite's default is 2 MiB): with a million members, the
/// indexes a reminder run or a bulk load walks stay in memory instead of being read again from the file.
public final class SQLiteDatabase: SQLDatabase, Service {
    /// SQLite's SQL, as every connection and migration writes it.
    public static let sqlDialect = SQLDialect(blobType: "BLOB", serialPrimaryKey: "INTEGER PRIMARY KEY AUTOINCREMENT", lockRowsClause: "")
    public let dialect = SQLiteDatabase.sqlDialect
    /// Ledger changes committed to the file, announced while ``run()`` runs.
    public var memberChanges: MemberChangeFeed? { changes }
    private let changes = MemberChangeFeed()
    /// The niceness of the report connection's thread: a report takes the cores only when requests leave them idle.
    static let reportNiceness: Int32 = 10

    private let writer: ConnectionThread
    private let writerLock = AsyncLock()
    /// Batches waiting for the writer, committed together (see ``writeBatch(_:)``).
    private let groupCommit = GroupCommit()
    private let readers: ReaderPool
    /// Reports (long reads) have a connection of their own: see ``readReport(_:)``.
    private let reportReader: ConnectionThread
    private let reportLock = AsyncLock()

    private init(writer: SQLiteConnection, readers: [SQLiteConnection], reportReader: SQLiteConnection) {
        self.writer = ConnectionThread(writer, name: "peez.sqlite.writer")
        self.readers = ReaderPool(readers)
        self.reportReader = ConnectionThread(reportReader, name: "peez.sqlite.reports", niceness: Self.reportNiceness)
    }

    /// Opens (creating if needed) the database file at `path`.
    ///
    /// A new file is created with mode 0600 before SQLite opens it: it holds members' names, phone numbers and
    /// emails, and SQLite gives its `-wal` and `-shm` files the mode of the database file.
    public static func open(path: String, readerCount: Int = 4) async throws -> SQLiteDatabase {
        let created = Glibc.open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        if created >= 0 { Glibc.close(created) }
        let writer = try SQLiteConnection(path: path)
        try configure(writer)
        _ = try writer.query("PRAGMA journal_mode = WAL", [])
        var readers: [SQLiteConnection] = []
        for _ in 0...max(1, readerCount) {
            let reader = try SQLiteConnection(path: path)
            try configure(reader)
            readers.append(reader)
        }
        let reportReader = readers.removeLast()
        return SQLiteDatabase(writer: writer, readers: readers, reportReader: reportReader)
    }

    /// What is wrong with the modes of the database at `path` and its `-wal` and `-shm` files, if group or
    /// others may read or write any of them (nil when none can, or none exists yet).
    public static func permissionProblem(path: String) -> String? {
        let exposed = [path, path + "-wal", path + "-shm"].filter { file in
            var status = stat()
            return stat(file, &status) == 0 && status.st_mode & 0o077 != 0
        }
        guard !exposed.isEmpty else { return nil }
        return "\(exposed.joined(separator: ", ")) can be read by other users of this machine (it holds members' "
            + "personal data): chmod 600 \(exposed.joined(separator: " "))"
    }

    private static func configure(_ connection: SQLiteConnection) throws {
        _ = try connection.query("PRAGMA busy_timeout = 5000", [])
        _ = try connection.query("PRAGMA foreign_keys = ON", [])
        _ = try connection.query("PRAGMA synchronous = FULL", [])
        _ = try connection.query("PRAGMA cache_size = -65536", [])
    }

    /// Writes a consistent copy of the database, as of one moment, to the new file `path` (mode 0600), while it
    /// stays in use: `VACUUM INTO` on the report reader, so no writer or request waits for it. The copy is a
    /// whole database, compacted, with no write-ahead log of its own: restore it by putting it in place of the
    /// ledger while the service is stopped.
    public func backup(to path: String) async throws {
        let created = Glibc.open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard created >= 0 else {
            throw SQLiteError(
                resultCode: SQLITE_CANTOPEN,
                "cannot create the backup \(path): \(String(cString: strerror(errno))) (it must not exist yet)"
            )
        }
        Glibc.close(created)
        do {
            _ = try await readReport { db in try await db.query("VACUUM INTO ?", [.text(path)]) }
        } catch {
            unlink(path)
            throw error
        }
    }

    /// Announces the ledger changes committed to the file by any process on ``memberChanges`` (see
    /// ``SQLiteChangeWatch``) until the task is cancelled or, in a service group, until graceful shutdown. Only a
    /// service runs it: a command that opens the file for a moment keeps no card in memory.
    public func run() async {
        await cancelWhenGracefulShutdown {
            await SQLiteChangeWatch(feed: self.changes) { sql, binds in try await self.read { db in try await db.query(sql, binds) } }.run()
        }
    }

    /// Waits for the work under way; the connections close when the database is released.
    public func close() async throws {
        try await writerLock.withLock {}
    }

    public func read<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await readers.withReader { try await body(InlineSQLiteExecutor(connection: $0)) }
    }

    /// A report runs on a reader connection of its own, one report at a time, on a thread of lower priority
    /// (see ``reportNiceness``): a report taking seconds leaves the other readers to requests, and the cores to
    /// sales. In WAL mode it blocks no writer and no other reader.
    public func readReport<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await reportLock.withLock { try await reportReader.withConnection { try await body(InlineSQLiteExecutor(connection: $0)) } }
    }

    public func writeStatement(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try await writerLock.withLock { try await writer.withConnection { try $0.query(sql, binds) } }
    }

    /// A write that need not be durable commits with `synchronous = NORMAL` (no fsync): the next commit with
    /// `FULL` syncs the whole write-ahead log, this write included.
    public func writeStatement(_ sql: String, _ binds: [SQLValue], durable: Bool) async throws -> [SQLRow] {
        try await writerLock.withLock {
            try await writer.withConnection { writer in
                if !durable { _ = try writer.query("PRAGMA synchronous = NORMAL", []) }
                defer { if !durable { _ = try? writer.query("PRAGMA synchronous = FULL", []) } }
                return try writer.query(sql, binds)
            }
        }
    }

    /// The write as ``writeStatement(_:_:durable:)``, then the read.
    public func writeThenRead(_ write: SQLStatement, durable: Bool, _ read: SQLStatement) async throws -> (written: Int, rows: [SQLRow]) {
        let written = try await writeStatement(write.sql + " RETURNING 1", write.binds, durable: durable).count
        return (written, try await self.read { db in try await db.query(read.sql, read.binds) })
    }

    /// Group commit (see ``GroupCommit``): the batch waits with the others that arrive while the writer is busy,
    /// and whichever of them takes the writer next commits all of them in one transaction and one fsync, each
    /// batch in a savepoint of its own so that one failing fails alone.
    public func writeBatch(_ statements: [SQLStatement]) async throws {
        let batch = groupCommit.enqueue(statements)
        try await writerLock.withLock {
            await groupCommit.commitUntilSettled(batch) { group in await Self.commit(group, on: writer) }
        }.get()
    }

    /// One transaction holding every batch of `group`, each in a savepoint: a batch whose statement fails is
    /// rolled back alone; a failing COMMIT fails them all.
    private static func commit(_ group: [[SQLStatement]], on thread: ConnectionThread) async -> [Result<Void, any Error>] {
        do {
            return try await thread.withConnection { connection in commit(group, on: connection) }
        } catch {
            return group.map { _ in .failure(error) }
        }
    }

    private static func commit(_ group: [[SQLStatement]], on connection: SQLiteConnection) -> [Result<Void, any Error>] {
        do {
            _ = try connection.query("BEGIN IMMEDIATE", [])
            let results = group.map { batch in
                Result<Void, any Error> {
                    _ = try connection.query("SAVEPOINT batch", [])
                    do {
                        for statement in batch { _ = try connection.query(statement.sql, statement.binds) }
                        _ = try connection.query("RELEASE batch", [])
                    } catch {
                        _ = try? connection.query("ROLLBACK TO batch", [])
                        _ = try? connection.query("RELEASE batch", [])
                        throw error
                    }
                }
            }
            _ = try connection.query("COMMIT", [])
            return results
        } catch {
            _ = try? connection.query("ROLLBACK", [])
            return group.map { _ in .failure(error) }
        }
    }

    public func write<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await write(durable: true, body)
    }

    /// One that need not be durable commits with `synchronous = NORMAL`, as ``writeStatement(_:_:durable:)``.
    public func write<T: Sendable>(durable: Bool, _ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await writerLock.withLock {
            try await writer.withConnection { writer in
                if !durable { _ = try writer.query("PRAGMA synchronous = NORMAL", []) }
                defer { if !durable { _ = try? writer.query("PRAGMA synchronous = FULL", []) } }
                _ = try writer.query("BEGIN IMMEDIATE", [])
                do {
                    let value = try await body(InlineSQLiteExecutor(connection: writer))
                    _ = try writer.query("COMMIT", [])
                    return value
                } catch {
                    _ = try? writer.query("ROLLBACK", [])
                    throw error
                }
            }
        }
    }
}

/// Runs statements on one SQLite connection on the calling thread: for reads by key (see ``SQLiteDatabase``).
struct InlineSQLiteExecutor: SQLExecutor {
    let connection: SQLiteConnection

    func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try connection.query(sql, binds)
    }
}
