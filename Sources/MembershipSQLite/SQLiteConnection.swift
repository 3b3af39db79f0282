import CPeezSQLite
import MembershipSQL

/// One connection to an SQLite file through Debian's libsqlite3.
///
/// Its calls block: ``SQLiteDatabase`` runs them on the connection's own thread (``ConnectionThread``) and makes
/// sure only one task uses a connection at a time (so SQLite's own per-call mutex is off). Prepared statements
/// are kept and reused, keyed by their SQL. The handle is closed when the connection goes.
final class SQLiteConnection: @unchecked Sendable {
    private let handle: OpaquePointer
    /// Prepared statements by SQL; emptied when it reaches ``statementCacheLimit``.
    private var statements: [String: OpaquePointer] = [:]
    static let statementCacheLimit = 64

    init(path: String) throws {
        var handle: OpaquePointer? = nil
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw SQLiteError(resultCode: status, "cannot open the database \(path): \(message)")
        }
        self.handle = handle
    }

    deinit {
        finalizeStatements()
        sqlite3_close_v2(handle)
    }

    /// Runs one statement and returns its rows.
    func query(_ sql: String, _ binds: [SQLValue]) throws -> [SQLRow] {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (offset, value) in binds.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .int(let number): status = sqlite3_bind_int64(statement, index, number)
            case .text(let text):
                // By byte count: a length of -1 would stop at the first NUL and store a shorter text.
                var text = text
                status = text.withUTF8 { bytes in
                    bytes.withMemoryRebound(to: CChar.self) { characters in
                        characters.isEmpty
                            ? sqlite3_bind_text(statement, index, "", 0, peez_sqlite_transient())
                            : sqlite3_bind_text(statement, index, characters.baseAddress, Int32(characters.count), peez_sqlite_transient())
                    }
                }
            case .blob(let bytes):
                status = bytes.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), peez_sqlite_transient()) }
            case .null: status = sqlite3_bind_null(statement, index)
            }
            guard status == SQLITE_OK else { throw currentError(sql) }
        }
        var rows: [SQLRow] = []
        var columns: [String]?
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW:
                let names = columns ?? (0..<sqlite3_column_count(statement)).map { String(cString: sqlite3_column_name(statement, $0)) }
                columns = names
                rows.append(row(statement, columns: names))
            case SQLITE_DONE: return rows
            default: throw currentError(sql)
            }
        }
    }

    private func prepared(_ sql: String) throws -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer? = nil
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK, let statement else {
            throw currentError(sql)
        }
        if statements.count >= Self.statementCacheLimit { finalizeStatements() }
        statements[sql] = statement
        return statement
    }

    private func finalizeStatements() {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements.removeAll()
    }

    private func row(_ statement: OpaquePointer, columns: [String]) -> SQLRow {
        var values: [SQLValue] = []
        values.reserveCapacity(columns.count)
        for column in 0..<Int32(columns.count) {
            switch sqlite3_column_type(statement, column) {
            case SQLITE_INTEGER: values.append(.int(sqlite3_column_int64(statement, column)))
            case SQLITE_FLOAT: values.append(.int(Int64(sqlite3_column_double(statement, column))))
            case SQLITE_TEXT:
                let count = Int(sqlite3_column_bytes(statement, column))
                values.append(
                    .text(String(decoding: UnsafeBufferPointer(start: sqlite3_column_text(statement, column), count: count), as: UTF8.self))
                )
            case SQLITE_BLOB:
                let count = Int(sqlite3_column_bytes(statement, column))
                let start = sqlite3_column_blob(statement, column)?.assumingMemoryBound(to: UInt8.self)
                values.append(.blob(count == 0 ? [] : Array(UnsafeBufferPointer(start: start, count: count))))
            default: values.append(.null)
            }
        }
        return SQLRow(columns: columns, values: values)
    }

    private func currentError(_ sql: String) -> any Error {
        let code = sqlite3_extended_errcode(handle)
        let message = String(cString: sqlite3_errmsg(handle))
        if code == peez_sqlite_constraint_unique() || code == peez_sqlite_constraint_primary_key() {
            return SQLError.uniqueViolation(message)
        }
        if code == peez_sqlite_constraint_not_null() { return SQLError.notNullViolation(message) }
        return SQLiteError(resultCode: code, "\(message) (in: \(sql.prefix(80)))")
    }
}

/// A failure SQLite reported: a stable ``code`` for the kinds a person can act on, SQLite's own extended
/// result code, and a ``reason`` that says what to do. Errors compare by code.
public struct SQLiteError: Error, Hashable, CustomStringConvertible, Sendable {
    public let code: Code
    /// SQLite's extended result code (https://sqlite.org/rescode.html).
    public let resultCode: Int32
    public let reason: String

    init(resultCode: Int32, _ message: String) {
        self.resultCode = resultCode
        switch resultCode & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED:
            code = .busy
            reason = "\(message): another process holds the database file (waited 5 s); stop the other peez using it"
        case SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_READONLY:
            code = .cannotOpen
            reason = "\(message): check that the folder exists and that this user may read and write the file"
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            code = .corrupt
            reason = "\(message): the file is damaged or is not a PEEZ database; restore it from a backup"
        case SQLITE_FULL, SQLITE_IOERR:
            code = .storage
            reason = "\(message): the disk is full or failing"
        default:
            code = .other
            reason = "\(message) (SQLite result code \(resultCode))"
        }
    }

    public var description: String { reason }

    public static func == (lhs: SQLiteError, rhs: SQLiteError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// An opaque code over a private enum, so codes can be added without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Backing: String, Hashable, Sendable {
            case busy
            case cannotOpen = "cannot_open"
            case corrupt, storage, other
        }
        private let backing: Backing
        private init(_ backing: Backing) { self.backing = backing }
        public var description: String { backing.rawValue }

        /// Another connection or process holds the file longer than the busy timeout.
        public static let busy = Code(.busy)
        /// The file or its folder cannot be opened, read or written.
        public static let cannotOpen = Code(.cannotOpen)
        /// The file is damaged or not an SQLite database.
        public static let corrupt = Code(.corrupt)
        /// The disk is full or reported an I/O error.
        public static let storage = Code(.storage)
        /// Anything else; the reason carries SQLite's message and result code.
        public static let other = Code(.other)
    }
}
