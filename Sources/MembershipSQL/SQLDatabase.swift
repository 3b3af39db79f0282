import PeezBasics

/// A value bound into or read out of SQL.
public enum SQLValue: Sendable, Hashable {
    case int(Int64)
    case text(String)
    case blob([UInt8])
    case null
}

/// One result row, by column name. The column names are shared by every row of a result; a row has a few
/// columns, so a name is found by a short scan rather than a dictionary built for each row.
public struct SQLRow: Sendable {
    public let columns: [String]
    public let values: [SQLValue]

    /// `values` in the order of `columns`.
    public init(columns: [String], values: [SQLValue]) {
        precondition(columns.count == values.count, "a row needs one value per column")
        self.columns = columns
        self.values = values
    }

    /// The value of `column`, nil if the row has no such column.
    public subscript(column: String) -> SQLValue? {
        columns.firstIndex(of: column).map { values[$0] }
    }

    public func int(_ column: String) throws -> Int64 {
        guard case .int(let value)? = self[column] else { throw SQLError.unexpectedValue(column) }
        return value
    }

    public func optionalInt(_ column: String) throws -> Int64? {
        if case .null? = self[column] { return nil }
        return try int(column)
    }

    public func text(_ column: String) throws -> String {
        guard case .text(let value)? = self[column] else { throw SQLError.unexpectedValue(column) }
        return value
    }

    public func optionalText(_ column: String) throws -> String? {
        if case .null? = self[column] { return nil }
        return try text(column)
    }

    public func blob(_ column: String) throws -> [UInt8] {
        switch self[column] {
        case .blob(let value)?: return value
        case .text(let value)?: return Array(value.utf8)
        default: throw SQLError.unexpectedValue(column)
        }
    }
}

/// A failure a driver reports in a form the store can act on: a stable ``code``, the ``subject`` it is about
/// (a constraint, a column, a command tag) and a ``reason`` a person can act on. Errors compare by code, so
/// tests assert on the code.
public struct SQLError: Error, Hashable, CustomStringConvertible, Sendable {
    public let code: Code
    public let subject: String
    public let reason: String

    public init(_ code: Code, subject: String, _ reason: String) {
        self.code = code
        self.subject = subject
        self.reason = reason
    }

    public var description: String { reason }

    public static func == (lhs: SQLError, rhs: SQLError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// A UNIQUE or PRIMARY KEY constraint refused a write; the subject names the constraint or column.
    public static func uniqueViolation(_ constraint: String) -> SQLError {
        SQLError(.uniqueViolation, subject: constraint, "unique constraint violated: \(constraint)")
    }

    /// A NOT NULL column was given no value; the subject names the column (a statement may leave one null on
    /// purpose, to refuse a write whose condition does not hold: see `completeIdempotentRequest`).
    public static func notNullViolation(_ column: String) -> SQLError {
        SQLError(.notNullViolation, subject: column, "not-null constraint violated: \(column)")
    }

    /// The database broke a deadlock between this transaction and another by rolling this one back: nothing
    /// was written; the same work may be tried again.
    public static func deadlock(_ detail: String) -> SQLError {
        SQLError(.deadlock, subject: "deadlock", "the database rolled this transaction back to break a deadlock: \(detail)")
    }

    /// A column held a value of an unexpected type: the schema and the code disagree.
    public static func unexpectedValue(_ column: String) -> SQLError {
        SQLError(
            .unexpectedValue,
            subject: column,
            "column \(column) holds a value of an unexpected type: the database's schema and this program disagree (is it the right database, migrated by this version?)"
        )
    }

    /// The database answered a COMMIT with another tag: the transaction was rolled back.
    public static func notCommitted(_ tag: String) -> SQLError {
        SQLError(.notCommitted, subject: tag, "the database answered COMMIT with \(tag): the transaction was not committed")
    }

    /// An opaque code over a private enum, so codes can be added without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Backing: String, Hashable, Sendable {
            case uniqueViolation = "unique_violation"
            case notNullViolation = "not_null_violation"
            case deadlock
            case unexpectedValue = "unexpected_value"
            case notCommitted = "not_committed"
        }
        private let backing: Backing
        private init(_ backing: Backing) { self.backing = backing }
        public var description: String { backing.rawValue }

        public static let uniqueViolation = Code(.uniqueViolation)
        public static let notNullViolation = Code(.notNullViolation)
        public static let deadlock = Code(.deadlock)
        public static let unexpectedValue = Code(.unexpectedValue)
        public static let notCommitted = Code(.notCommitted)
    }
}

/// Runs statements. Placeholders are written `?`; a driver rewrites them as its database needs.
public protocol SQLExecutor: Sendable {
    func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow]
    /// Adds many rows to `table` (a trusted name, as are the `columns`) the fastest way the database has: each
    /// row holds one value per column, in their order.
    func insertRows(into table: String, columns: [String], _ rows: [[SQLValue]]) async throws
}

extension SQLExecutor {
    /// Runs a statement whose rows, if any, are not wanted.
    public func execute(_ sql: String, _ binds: [SQLValue] = []) async throws {
        _ = try await query(sql, binds)
    }

    /// Runs `statement`, its rows, if any, not wanted.
    public func run(_ statement: SQLStatement) async throws {
        try await execute(statement.sql, statement.binds)
    }

    /// Runs `statement` and answers its rows.
    public func query(_ statement: SQLStatement) async throws -> [SQLRow] {
        try await query(statement.sql, statement.binds)
    }

    /// Multi-row INSERT statements of at most 30,000 values each (SQLite takes 32,766 at most).
    public func insertRows(into table: String, columns: [String], _ rows: [[SQLValue]]) async throws {
        let perStatement = max(1, 30_000 / max(1, columns.count))
        let placeholders = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        for start in stride(from: 0, to: rows.count, by: perStatement) {
            let slice = rows[start..<min(start + perStatement, rows.count)]
            try await execute(
                "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES "
                    + Array(repeating: placeholders, count: slice.count).joined(separator: ", "),
                slice.flatMap { $0 }
            )
        }
    }
}

/// One statement and its values, to run as part of a batch.
/// A row a statement inserts under a unique key (a member's next version): once a batch holding it has
/// committed, a later batch holding the same claim would be refused with `refusal`, so a group commit fails it
/// with that error without sending it, and never puts two batches with one claim in one transaction.
public struct SQLClaim: Sendable, Hashable {
    public var key: String
    public var refusal: SQLError

    public init(key: String, refusal: SQLError) {
        self.key = key
        self.refusal = refusal
    }
}

public struct SQLStatement: Sendable {
    public var sql: String
    public var binds: [SQLValue]
    /// What this statement takes that no two committed statements may share (see ``SQLClaim``); nil for most.
    public var claim: SQLClaim?

    public init(_ sql: String, _ binds: [SQLValue] = [], claim: SQLClaim? = nil) {
        self.sql = sql
        self.binds = binds
        self.claim = claim
    }

    /// `INSERT INTO table (columns) VALUES (?, …)` with one value per column, in their order (a trusted table
    /// name and columns).
    public static func insert(into table: String, columns: [String], _ values: [SQLValue]) -> SQLStatement {
        precondition(columns.count == values.count, "an insert needs one value per column")
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        return SQLStatement("INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))", values)
    }
}

/// What differs between the SQL the two stores speak.
public struct SQLDialect: Sendable {
    /// The column type for binary data.
    public var blobType: String
    /// A column definition for a 64-bit auto-incrementing primary key.
    public var serialPrimaryKey: String
    /// Appended to a SELECT that must lock the rows it reads until the transaction ends ("" where a
    /// write transaction already excludes other writers).
    public var lockRowsClause: String
    /// The channel on which the database announces, at commit, the uuid of every member whose ledger changed
    /// (nil where it cannot).
    public var memberChangeChannel: String?
    /// A statement that makes the transaction it runs in wait for every other migrating transaction, if one is
    /// needed to let several instances start at once.
    public var migrationLockStatement: String?
    /// Appended to a SELECT that takes rows to work on: rows another transaction holds are passed over, not
    /// waited for, so several workers share a queue ("" where write transactions already run one at a time).
    public var skipLockedClause: String
    /// Whether tables take a `fillfactor` (room left in each page, so an update that changes no indexed column
    /// writes the new row version beside the old one and touches no index).
    public var hasFillFactor: Bool
    /// The hidden column that names a row within one statement (`rowid`, `ctid`): a report sorts narrow rows
    /// and fetches back only the whole rows it keeps.
    public var rowIdentity: String
    /// Appended to a text expression so that it compares byte by byte (a prefix is then a range an index
    /// answers): "" where that is already the default.
    public var bytewiseCollation: String
    /// An expression over a text column `key` that makes the transaction it runs in wait, until they end, for
    /// every other one that took the same key, where concurrent writers can commit at once (nil where write
    /// transactions already run one at a time).
    public var keyLockExpression: String?
    /// The index that finds any part of the members' search keys.
    public var partSearch: PartSearch
    /// How the database names the Algiers month of a time.
    public var monthFunction: MonthFunction

    /// How a database finds a part of a text without reading every row: an index of its three-character pieces.
    public enum PartSearch: Sendable {
        /// A full-text table of trigrams beside the rows (SQLite's FTS5 `trigram` tokenizer).
        case trigramTable
        /// A GIN index of trigrams on the column itself (PostgreSQL's `pg_trgm`).
        case trigramIndex
    }

    /// How a database writes the Algiers month of a time in seconds as the number `YYYYMM`.
    public enum MonthFunction: Sendable {
        /// SQLite's `strftime` over a Unix time.
        case strftime
        /// PostgreSQL's `to_char` over `to_timestamp`.
        case toChar
    }

    /// The Algiers month of the time in seconds `expression` (a column, a `?` or a subquery), as `YYYYMM`.
    public func algiersMonth(_ expression: String) -> String {
        switch monthFunction {
        case .strftime: "CAST(strftime('%Y%m', (\(expression)) + \(AlgiersCalendar.utcOffset), 'unixepoch') AS INTEGER)"
        case .toChar:
            "CAST(to_char(to_timestamp(CAST((\(expression)) AS BIGINT) + \(AlgiersCalendar.utcOffset)) AT TIME ZONE 'UTC', 'YYYYMM') AS BIGINT)"
        }
    }

    public init(
        blobType: String,
        serialPrimaryKey: String,
        lockRowsClause: String,
        memberChangeChannel: String? = nil,
        migrationLockStatement: String? = nil,
        skipLockedClause: String = "",
        hasFillFactor: Bool = false,
        rowIdentity: String = "rowid",
        bytewiseCollation: String = "",
        keyLockExpression: String? = nil,
        partSearch: PartSearch = .trigramTable,
        monthFunction: MonthFunction = .strftime
    ) {
        self.blobType = blobType
        self.serialPrimaryKey = serialPrimaryKey
        self.lockRowsClause = lockRowsClause
        self.memberChangeChannel = memberChangeChannel
        self.migrationLockStatement = migrationLockStatement
        self.skipLockedClause = skipLockedClause
        self.hasFillFactor = hasFillFactor
        self.rowIdentity = rowIdentity
        self.bytewiseCollation = bytewiseCollation
        self.keyLockExpression = keyLockExpression
        self.partSearch = partSearch
        self.monthFunction = monthFunction
    }
}

/// A database the SQL store can run on.
public protocol SQLDatabase: Sendable {
    var dialect: SQLDialect { get }
    /// Runs `body` with a connection for reading.
    func read<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T
    /// Runs `body` with a connection for a long read (an admin's report over many rows), away from the
    /// connections and threads that serve requests, so it holds up no other request however long it takes.
    func readReport<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T
    /// Runs `body` in one transaction, committed when it returns and rolled back when it throws. It returns
    /// only once the commit is durable.
    func write<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T
    /// ``write(_:)``; one that need not be `durable` may be answered before its commit reaches the disk (a
    /// crash may lose it), for records whose loss is harmless.
    func write<T: Sendable>(durable: Bool, _ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T
    /// Runs one statement as a transaction of its own, returned once the commit is durable.
    func writeStatement(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow]
    /// Runs one statement as a transaction of its own; one that need not be `durable` may be answered before
    /// its commit reaches the disk, so a crash may lose it (for records whose loss is harmless, like a card,
    /// which is signed again when missing).
    func writeStatement(_ sql: String, _ binds: [SQLValue], durable: Bool) async throws -> [SQLRow]
    /// Runs the statements as one transaction, in one round trip where the database can. The statements
    /// must not depend on each other's effects and must not change the same rows: they may run on one
    /// snapshot, in any order.
    func writeBatch(_ statements: [SQLStatement]) async throws
    /// Runs `write` (committed on its own) and `read`, in one round trip where the database can, and returns
    /// how many rows `write` wrote and the rows `read` found. `write` must not end in `RETURNING`; `read` may
    /// see the data as it was before `write`. A write that is not `durable` does not wait for the disk: a crash
    /// may lose it until the next durable commit, which makes it durable too (for records whose loss is
    /// harmless, like the claim on an idempotency key).
    func writeThenRead(_ write: SQLStatement, durable: Bool, _ read: SQLStatement) async throws -> (written: Int, rows: [SQLRow])
    /// Where other processes' ledger changes are announced, if the database announces them (see
    /// ``SQLDialect/memberChangeChannel``); the store keeps cards in memory only then.
    var memberChanges: MemberChangeFeed? { get }
}

extension SQLDatabase {
    /// The statements in order, in one transaction.
    public func writeBatch(_ statements: [SQLStatement]) async throws {
        try await write { db in
            for statement in statements { try await db.execute(statement.sql, statement.binds) }
        }
    }

    /// The write, then the read: two statements, the write durable.
    public func writeThenRead(_ write: SQLStatement, durable: Bool, _ read: SQLStatement) async throws -> (written: Int, rows: [SQLRow]) {
        let written = try await writeStatement(write.sql + " RETURNING 1", write.binds).count
        return (written, try await self.read { db in try await db.query(read.sql, read.binds) })
    }

    public var memberChanges: MemberChangeFeed? { nil }

    /// A database whose statements wait without holding a thread (a server's) reads reports as any read.
    public func readReport<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await read(body)
    }

    /// Durable whatever is asked, where a database has no cheaper way.
    public func write<T: Sendable>(durable: Bool, _ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await write(body)
    }

    /// Durable whatever is asked, where a database has no cheaper way.
    public func writeStatement(_ sql: String, _ binds: [SQLValue], durable: Bool) async throws -> [SQLRow] {
        try await writeStatement(sql, binds)
    }
}
