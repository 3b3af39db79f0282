import Foundation
public import Logging
import Membership
public import MembershipSQL
import NIOCore
import NIOPosix
public import PostgresNIO
public import ServiceLifecycle
import Synchronization

/// The store's database on a PostgreSQL server, for several service instances behind a load balancer.
///
/// Connections come from PostgresNIO's pool (`PostgresClient`), lent to one caller at a time by a
/// ``ConnectionLender``: a statement waits at most ``connectionWait`` for a connection, then fails as
/// ``MembershipError/Code/storeUnavailable`` (a 503 in the API), and nothing waits for the database once its task is
/// cancelled. ``run()`` must run for as long as the database is used. It also keeps one more connection listening
/// on the member-change channel, so every instance hears every committed ledger change (``memberChanges``) and can
/// keep current cards in memory.
public final class PostgresDatabase: SQLDatabase, Service {
    /// PostgreSQL's SQL, as every instance and migration writes it.
    public static let sqlDialect = SQLDialect(
        blobType: "BYTEA",
        serialPrimaryKey: "BIGSERIAL PRIMARY KEY",
        lockRowsClause: " FOR NO KEY UPDATE",
        memberChangeChannel: "peez_member_changes",
        migrationLockStatement: "SELECT pg_advisory_xact_lock(\(migrationLockKey))",
        skipLockedClause: " FOR UPDATE SKIP LOCKED",
        hasFillFactor: true,
        rowIdentity: "ctid",
        bytewiseCollation: " COLLATE \"C\"",
        keyLockExpression: "pg_advisory_xact_lock(hashtext(key))",
        partSearch: .trigramIndex,
        monthFunction: .toChar
    )
    public let dialect = PostgresDatabase.sqlDialect
    /// The advisory lock migrations take ("PEEZ" in ASCII).
    static let migrationLockKey = 0x5045_455A
    /// The connection pool.
    public let client: PostgresClient
    /// How long a statement waits for a connection before the store is reported unavailable.
    public let connectionWait: Duration
    /// The pool's connections, lent one caller at a time.
    private let lender: ConnectionLender
    private let connectionCount: Int
    public let memberChanges: MemberChangeFeed?
    private let listenerConfiguration: PostgresConnection.Configuration
    private let statements = PreparedStatements()
    /// Durable batches waiting to be committed together, and the lock the one committing holds.
    private let groupCommit = GroupCommit()
    private let committer = AsyncLock()
    /// Reports take turns: however many run at once, they hold at most one of the pool's connections.
    private let reportLock = AsyncLock()
    private let logger: Logger
    /// Whether ``run()`` has started the pool, and the tasks waiting for it to (``poolStarted()``).
    private let poolStart = Mutex<(started: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// A pool of `connections` to the server `configuration` names.
    ///
    /// The pool opens `connections` connections as the lenders lease them (``run()``: each holds one for as long
    /// as it lives and lends it to statement after statement), without keep-alive pings; a held connection is never
    /// idle, so no idle timer is set on any lease. The pool keeps no minimum: with one (PostgresNIO 1.33's
    /// `minimumConnections`), a lease asked for while the server's connections close (the database crashed or
    /// restarted) fails the pool's precondition that the connections it counts never fall below the minimum, and
    /// the whole process stops on an illegal instruction (found by the soak, `make soak STORES=postgres`). A
    /// connection the server closes is replaced when its lender leases again. A statement waits at most
    /// `connectionWait` for a connection (all busy, or the server away).
    public init(
        configuration: PostgresConnection.Configuration,
        connections: Int = 8,
        connectionWait: Duration = .seconds(5),
        logger: Logger = Logger(label: "peez.postgres")
    ) {
        var poolConfiguration = PostgresClient.Configuration(
            host: configuration.host ?? "localhost",
            port: configuration.port ?? 5432,
            username: configuration.username,
            password: configuration.password,
            database: configuration.database,
            tls: .disable
        )
        poolConfiguration.options.minimumConnections = 0
        poolConfiguration.options.maximumConnections = connections
        poolConfiguration.options.keepAliveBehavior = nil
        // What a commit promises must not depend on the server's default: a COMMIT returns once it is on disk.
        poolConfiguration.options.additionalStartupParameters = [("synchronous_commit", "on")]
        self.client = PostgresClient(configuration: poolConfiguration, backgroundLogger: logger)
        self.connectionWait = connectionWait
        self.lender = ConnectionLender(
            maximumWait: connectionWait,
            server: "PostgreSQL at \(configuration.host ?? "localhost"):\(configuration.port ?? 5432)"
        )
        self.connectionCount = connections
        self.listenerConfiguration = configuration
        self.memberChanges = MemberChangeFeed()
        self.logger = logger
    }

    /// A pool for `postgres://user:password@host:port/database` (TLS off; on loopback or a private network).
    public convenience init(
        url: String,
        connections: Int = 8,
        connectionWait: Duration = .seconds(5),
        logger: Logger = Logger(label: "peez.postgres")
    ) throws {
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? ""),
            let host = components.host, let user = components.user
        else {
            throw PostgresStoreError(.invalidURL, "the database URL must look like postgres://user:password@host:5432/database")
        }
        let configuration = PostgresConnection.Configuration(
            host: host,
            port: components.port ?? 5432,
            username: user,
            password: components.password,
            database: components.path.count > 1 ? String(components.path.dropFirst()) : nil,
            tls: .disable
        )
        self.init(configuration: configuration, connections: connections, connectionWait: connectionWait, logger: logger)
    }

    /// Runs the connection pool, the tasks that lend its connections and the change listener until the task is
    /// cancelled or, in a service group, until graceful shutdown (which a group gives its services after the ones
    /// started later have stopped). Each part returns at once when cancelled, whether or not the server answers:
    /// a statement still waiting is told the store is closed.
    public func run() async {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    self.markPoolStarted()
                    await self.client.run()
                }
                for _ in 0..<self.connectionCount {
                    group.addTask { await self.lendConnections() }
                }
                group.addTask { await self.lender.run() }
                group.addTask { await self.listenForMemberChanges() }
            }
        }
    }

    /// Leases one of the pool's connections and lends it until it closes, then the next, until cancelled.
    private func lendConnections() async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in await lender.hold(connection) }
            } catch {
                // The pool has given up on the server for a while, or is closing: lease again a little later.
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// Returns once ``run()`` has started the pool: a query made before would be logged by PostgresNIO as a
    /// lease from a pool that does not run yet (and waits for it anyway).
    public func poolStarted() async {
        await withCheckedContinuation { continuation in
            let started = poolStart.withLock { state in
                if !state.started { state.waiters.append(continuation) }
                return state.started
            }
            if started { continuation.resume() }
        }
    }

    private func markPoolStarted() {
        let waiters = poolStart.withLock { state in
            state.started = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Connects once, outside the pool, and fails within `timeout` with one clear sentence if the server cannot
    /// be reached, refuses the credentials, or has no such database; the pool itself would retry for ever.
    public func checkReachable(within timeout: Duration) async throws {
        let configuration = listenerConfiguration
        let target =
            "PostgreSQL at \(configuration.host ?? "localhost"):\(configuration.port ?? 5432), database \(configuration.database ?? configuration.username)"
        let logger = logger
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
                    try? await connection.close()
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw PostgresStoreError(.unreachable, "no answer from \(target) within \(timeout)")
                }
                try await group.next()
                group.cancelAll()
            }
        } catch let error as PostgresStoreError {
            throw error
        } catch let error as PSQLError {
            let closed = error.code == .serverClosedConnection ? "the connection closed before the server answered" : "\(error.code)"
            let reason = error.serverInfo?[.message] ?? error.underlying.map(Self.reason) ?? closed
            throw PostgresStoreError(.unreachable, "cannot use \(target): \(reason)")
        } catch {
            throw PostgresStoreError(.unreachable, "cannot use \(target): \(Self.reason(error))")
        }
    }

    /// A failed connection in the system's words ("Connection refused", "No route to host", "no such host
    /// db.example"), not NIO's description of every address it tried.
    static func reason(_ error: any Error) -> String {
        if let error = error as? NIOConnectionError, let first = error.connectionErrors.first?.error ?? error.dnsAError ?? error.dnsAAAAError {
            return reason(first)
        }
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)) }
        if case .unknown(let host, _) = error as? SocketAddressError { return "no such host \(host)" }
        if let error = error as? SocketAddressError.UnknownHost { return "no such host \(error.host) (\(error.errorDescription))" }
        return "\(error)"
    }

    /// Listens on the member-change channel, announcing each change; after a lost connection, announces the
    /// interruption and listens again (a second later, then up to every 10 s).
    private func listenForMemberChanges() async {
        guard let channel = dialect.memberChangeChannel, let feed = memberChanges else { return }
        var pause: Duration = .seconds(1)
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(configuration: listenerConfiguration, id: 0, logger: logger)
                do {
                    try await connection.listen(on: channel) { notifications in
                        feed.publish(.listening)
                        pause = .seconds(1)
                        for try await notification in notifications {
                            if let member = UUID(uuidString: notification.payload) {
                                feed.publish(.changed(member))
                            } else if notification.payload.hasPrefix("credential:") {
                                feed.publish(.credentialChanged(secretHash: String(notification.payload.dropFirst(11))))
                            }
                        }
                    }
                } catch {
                    try? await connection.close()
                    throw error
                }
                try? await connection.close()
            } catch {
                if !Task.isCancelled {
                    logger.warning(
                        "member-change listener lost its connection; cards are read from the database until it is back",
                        metadata: ["error": "\(String(reflecting: error))"]
                    )
                }
            }
            feed.publish(.interrupted)
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .seconds(10))
        }
    }

    public func read<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await lender.withConnection { connection in
            try await body(PostgresExecutor(connection: connection, statements: statements, logger: logger))
        }
    }

    /// A report (the console's panels, the shared-cards report) waits without holding a thread, and reports take
    /// turns on one connection at a time: a console refreshed by many clients leaves the other connections to
    /// sales and cards.
    public func readReport<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await reportLock.withLock { try await read(body) }
    }

    /// One statement in a transaction of its own, returned once its COMMIT is done (see ``write(_:)``).
    public func writeStatement(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try await write { db in try await db.query(sql, binds) }
    }

    /// One that need not be durable runs as an implicit transaction, one round trip, answered before its
    /// commit (see ``write(_:)``): acceptable only because losing such a write is harmless.
    public func writeStatement(_ sql: String, _ binds: [SQLValue], durable: Bool) async throws -> [SQLRow] {
        guard !durable else { return try await writeStatement(sql, binds) }
        return try await lender.withConnection { connection in
            try await PostgresExecutor(connection: connection, statements: statements, logger: logger).query(sql, binds)
        }
    }

    /// Group commit (see ``GroupCommit``): the batches that arrive while a commit is under way are written by
    /// the next one together, as one statement (every statement of every batch a data-modifying `WITH` clause)
    /// in one transaction, so they share its round trips and its flush. Each batch is answered once that
    /// transaction's COMMIT is done. If the server refuses the group (a batch collides with another writer's
    /// row, or two of the group with each other), none of it was written, and each half of the group is written
    /// again, halved again while refused, until the batch that collided fails alone.
    public func writeBatch(_ statements: [SQLStatement]) async throws {
        guard !statements.isEmpty else { return }
        let batch = groupCommit.enqueue(statements)
        try await committer.withLock {
            await groupCommit.commitUntilSettled(batch) { group in await self.commit(group) }
        }.get()
    }

    private func commit(_ group: [[SQLStatement]]) async -> [Result<Void, any Error>] {
        do {
            // A group's statement differs with its size and is run once: only a lone batch's is worth preparing.
            try await write(preparing: group.count == 1) { db in
                let statement = Self.oneStatement(group.flatMap { $0 })
                _ = try await db.query(statement.sql, statement.binds)
            }
            return group.map { _ in .success(()) }
        } catch  where group.count > 1 && Self.isRefusalByServer(error) {
            // Nothing of it was written. Each half is written again on its own, and halved again if refused: the
            // batch that collided ends up alone in a few transactions, and the rest still share their commits.
            let half = group.count / 2
            return await commit(Array(group[..<half])) + commit(Array(group[half...]))
        } catch {
            // Perhaps committed, perhaps not (the connection was lost): every batch is told so, none written twice.
            return group.map { _ in .failure(error) }
        }
    }

    /// All but the last statement become data-modifying `WITH` clauses of the last: one statement, one round trip.
    static func oneStatement(_ statements: [SQLStatement]) -> SQLStatement {
        guard let last = statements.last else { return SQLStatement("SELECT 1", []) }
        let clauses = statements.dropLast().enumerated().map { "batch\($0.offset) AS (\($0.element.sql))" }
        return SQLStatement(
            clauses.isEmpty ? last.sql : "WITH " + clauses.joined(separator: ", ") + " " + last.sql,
            statements.flatMap(\.binds)
        )
    }

    /// Whether the server answered `error` itself, so that the transaction it ended was rolled back (a
    /// statement refused, or a COMMIT answered ROLLBACK) rather than cut off with its outcome unknown.
    static func isRefusalByServer(_ error: any Error) -> Bool {
        switch error {
        case let error as SQLError: return [.uniqueViolation, .notNullViolation, .notCommitted, .deadlock].contains(error.code)
        case let error as PSQLError: return error.serverInfo != nil
        case PostgresError.server: return true
        default: return false
        }
    }

    /// One statement: the write as a data-modifying `WITH` clause, and the read's rows (if any) joined to one
    /// row that counts what the write wrote.
    ///
    /// A write that need not be durable runs as an implicit transaction, one round trip, and turns
    /// `synchronous_commit` off for it: the answer comes before the commit (see ``write(_:)``), which is
    /// acceptable only because losing such a write is harmless. A durable one is a transaction of its own.
    public func writeThenRead(_ write: SQLStatement, durable: Bool, _ read: SQLStatement) async throws -> (written: Int, rows: [SQLRow]) {
        let sql = """
            WITH written AS (\(write.sql) RETURNING 1)
            SELECT (SELECT COUNT(*) FROM written) AS peez_written, r.*
            FROM (SELECT set_config('synchronous_commit', '\(durable ? "on" : "off")', true)) AS one
            LEFT JOIN (SELECT 1 AS peez_read, q.* FROM (\(read.sql)) AS q) AS r ON TRUE
            """
        let rows = try await writeStatement(sql, write.binds + read.binds, durable: durable)
        return (Int(try rows.first?.int("peez_written") ?? 0), rows.filter { $0["peez_read"] != .null })
    }

    /// Runs `body` between `BEGIN` and `COMMIT`, and returns only once PostgreSQL has answered the COMMIT
    /// with the tag `COMMIT`: the transaction is then committed and, with `synchronous_commit` on (which
    /// every connection of the pool sets), flushed to the server's disk.
    ///
    /// A write is never left to an implicit transaction. In the extended query protocol, which PostgresNIO
    /// speaks, an implicit transaction commits when the server handles the Sync message, after it has sent
    /// the statement's CommandComplete; PostgresNIO reports the statement done at CommandComplete. A server
    /// that dies in between has answered a write it never committed. A COMMIT statement, by contrast, is
    /// committed before its CommandComplete is sent. A transaction that failed inside answers COMMIT with
    /// the tag `ROLLBACK` and no error, hence the tag check.
    public func write<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await write(preparing: true, body)
    }

    /// One that need not be durable turns `synchronous_commit` off for its transaction: its COMMIT is answered
    /// before the commit is flushed (see ``writeThenRead(_:durable:_:)``).
    public func write<T: Sendable>(durable: Bool, _ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await write(preparing: true, durable: durable, body)
    }

    /// ``write(_:)``, its statements prepared (and kept per connection) or not.
    private func write<T: Sendable>(preparing: Bool, durable: Bool = true, _ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await lender.withConnection { connection in
            let executor = PostgresExecutor(connection: connection, statements: statements, logger: logger, prepares: preparing)
            try await executor.execute("BEGIN")
            if !durable { try await executor.execute("SET LOCAL synchronous_commit TO OFF") }
            let value: T
            do {
                value = try await body(executor)
            } catch {
                try? await executor.execute("ROLLBACK")
                throw error
            }
            let tag = try await executor.answer { $0.query("COMMIT", []) }.metadata.command
            guard tag == "COMMIT" else { throw SQLError.notCommitted(tag) }
            return value
        }
    }
}

/// The PostgreSQL store cannot be set up: a stable ``code`` and a ``reason`` that says what was tried and what
/// went wrong. Errors compare by code.
public struct PostgresStoreError: Error, Hashable, CustomStringConvertible, Sendable {
    public let code: Code
    public let reason: String

    init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }

    public static func == (lhs: PostgresStoreError, rhs: PostgresStoreError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// An opaque code over a private enum, so codes can be added without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Backing: String, Hashable, Sendable {
            case invalidURL = "invalid_url"
            case unreachable
        }
        private let backing: Backing
        private init(_ backing: Backing) { self.backing = backing }
        public var description: String { backing.rawValue }

        /// The database URL is not `postgres://user[:password]@host[:port]/database`.
        public static let invalidURL = Code(.invalidURL)
        /// The server cannot be reached in time, refuses the credentials, or has no such database.
        public static let unreachable = Code(.unreachable)
    }
}

/// Runs statements on one PostgreSQL connection: `?` placeholders become `$1…`, values and unique
/// violations are translated.
struct PostgresExecutor: SQLExecutor {
    let connection: PostgresConnection
    let statements: PreparedStatements
    let logger: Logger
    /// Whether statements are prepared and kept per connection (the store's own, run again and again).
    var prepares = true

    func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try await query(sql, binds, retryStale: true)
    }

    private func query(_ sql: String, _ binds: [SQLValue], retryStale: Bool) async throws -> [SQLRow] {
        do {
            var result: [SQLRow] = []
            var columns: [String]?
            func append(_ row: PostgresRow) throws {
                let names = columns ?? row.map(\.columnName)
                columns = names
                result.append(try Self.row(row, columns: names))
            }
            let values = binds.map(Self.data)
            if prepares,
                let statement = try await statements.statement(
                    sql,
                    on: connection,
                    prepare: { sql in try await answer { $0.prepare(query: Self.numberedPlaceholders(sql)) } }
                )
            {
                for row in try await answer({ _ in statement.execute(values) }) { try append(row) }
            } else {
                let serverSQL = Self.numberedPlaceholders(sql)
                for row in try await answer({ $0.query(serverSQL, values) }) { try append(row) }
            }
            return result
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw SQLError.uniqueViolation(error.serverInfo?[.constraintName] ?? "unique")
        } catch PostgresError.server(let error) where error.fields[.sqlState] == "23505" {
            throw SQLError.uniqueViolation(error.fields[.constraintName] ?? "unique")
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == Self.notNullViolation {
            throw SQLError.notNullViolation("\(error.serverInfo?[.tableName] ?? "").\(error.serverInfo?[.columnName] ?? "")")
        } catch PostgresError.server(let error) where error.fields[.sqlState] == Self.notNullViolation {
            throw SQLError.notNullViolation("\(error.fields[.tableName] ?? "").\(error.fields[.columnName] ?? "")")
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == Self.deadlockDetected {
            throw SQLError.deadlock(error.serverInfo?[.detail] ?? "")
        } catch PostgresError.server(let error) where error.fields[.sqlState] == Self.deadlockDetected {
            throw SQLError.deadlock(error.fields[.detail] ?? "")
        } catch PostgresError.server(let error) where error.fields[.sqlState] == Self.featureNotSupported && retryStale {
            // "cached plan must not change result type": another instance's migration changed a table under a
            // prepared statement. Prepare afresh.
            statements.forget(connection)
            return try await query(sql, binds, retryStale: false)
        }
    }

    /// The server's answer to what `send` writes on the connection, waited for only while the connection is open
    /// and the task is not cancelled; a connection lost first is ``MembershipError/Code/storeUnavailable``.
    ///
    /// `send` runs on the connection's event loop once the connection is seen open there. PostgresNIO (1.33) writes
    /// a statement without a promise for the write, so a statement written after the socket has closed (its
    /// handlers gone) is dropped and never answered, and its caller would wait for ever; on the event loop nothing
    /// closes between the check and the write, and a statement that reaches PostgresNIO's handler is always
    /// answered, if only with the close. A cancelled task closes the connection, which ends the statement at once
    /// (and rolls back its transaction); the pool then opens another.
    func answer<T: Sendable>(_ send: @escaping @Sendable (PostgresConnection) -> EventLoopFuture<T>) async throws -> T {
        let connection = self.connection
        let answer = connection.eventLoop.flatSubmit {
            connection.isClosed ? connection.eventLoop.makeFailedFuture(PostgresError.connectionClosed) : send(connection)
        }
        do {
            return try await withTaskCancellationHandler {
                try await answer.get()
            } onCancel: {
                connection.close().whenComplete { _ in }
            }
        } catch let error where Self.isConnectionLost(error) {
            try Task.checkCancellation()
            throw MembershipError(
                .storeUnavailable,
                "The connection to PostgreSQL closed before the statement was answered (the server stopped, or the network failed); "
                    + "a write may or may not have been recorded: send the request again (a sale with the same Idempotency-Key is recorded once)."
            )
        }
    }

    /// Whether `error` says the connection was lost, rather than a statement refused.
    static func isConnectionLost(_ error: any Error) -> Bool {
        switch error {
        case PostgresError.connectionClosed: return true
        case let error as PSQLError:
            return [.serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown].contains(error.code)
        default: return false
        }
    }

    /// SQLSTATE 23502: a NOT NULL column was given no value.
    static let notNullViolation = "23502"

    /// SQLSTATE 40P01: PostgreSQL rolled the transaction back to break a deadlock.
    static let deadlockDetected = "40P01"

    /// SQLSTATE 0A000, which PostgreSQL reports for a prepared statement made stale by a schema change.
    static let featureNotSupported = "0A000"

    private static func row(_ row: PostgresRow, columns: [String]) throws -> SQLRow {
        var values: [SQLValue] = []
        values.reserveCapacity(columns.count)
        for cell in row { values.append(try value(of: cell)) }
        return SQLRow(columns: columns, values: values)
    }

    private static func data(_ value: SQLValue) -> PostgresData {
        switch value {
        case .int(let number): return PostgresData(int64: number)
        case .text(let text): return PostgresData(string: text)
        case .blob(let bytes): return PostgresData(bytes: bytes)
        case .null: return .null
        }
    }

    /// A cell as the store's value, read from its binary form. (Results always come in binary; cells of
    /// prepared statements are labelled text by PostgresNIO's `prepare`, so the label is not consulted.)
    private static func value(of cell: PostgresCell) throws -> SQLValue {
        guard var bytes = cell.bytes else { return .null }
        switch cell.dataType {
        case .int8:
            guard bytes.readableBytes == 8, let number = bytes.readInteger(as: Int64.self) else { throw SQLError.unexpectedValue(cell.columnName) }
            return .int(number)
        case .int4:
            guard bytes.readableBytes == 4, let number = bytes.readInteger(as: Int32.self) else { throw SQLError.unexpectedValue(cell.columnName) }
            return .int(Int64(number))
        case .int2:
            guard bytes.readableBytes == 2, let number = bytes.readInteger(as: Int16.self) else { throw SQLError.unexpectedValue(cell.columnName) }
            return .int(Int64(number))
        case .bool:
            guard bytes.readableBytes == 1, let flag = bytes.readInteger(as: UInt8.self) else { throw SQLError.unexpectedValue(cell.columnName) }
            return .int(Int64(flag))
        case .bytea:
            return .blob(Array(bytes.readableBytesView))
        default:  // text, varchar, and the empty result of a void function
            return .text(String(buffer: bytes))
        }
    }

    /// Rewrites `?` as `$1`, `$2`, …; the store's SQL has no `?` inside string literals.
    static func numberedPlaceholders(_ sql: String) -> String {
        var result: [UInt8] = []
        result.reserveCapacity(sql.utf8.count + 32)
        var number = 0
        for byte in sql.utf8 {
            if byte == UInt8(ascii: "?") {
                number += 1
                result.append(UInt8(ascii: "$"))
                result.append(contentsOf: String(number).utf8)
            } else {
                result.append(byte)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}
