public import Foundation
public import Logging
public import MembershipSQL
public import PostgresNIO

/// The store's database on a PostgreSQL server, for several service instances behind a load balancer.
///
/// Connections come from PostgresNIO's pool (`PostgresClient`), which must be running: add ``client`` to the
/// service group, or call ``run()`` in a task. Write transactions lock the member rows they change with
/// `SELECT … FOR UPDATE`, so concurrent activations of one member on any instance take turns.
public final class PostgresDatabase: SQLDatabase {
    public let dialect = SQLDialect(blobType: "BYTEA", serialPrimaryKey: "BIGSERIAL PRIMARY KEY", lockRowsClause: " FOR UPDATE", serializesAllWrites: false)
    /// The connection pool; a `Service` to run for as long as the database is used.
    public let client: PostgresClient
    private let logger: Logger

    public init(client: PostgresClient, logger: Logger = Logger(label: "peez.postgres")) {
        self.client = client
        self.logger = logger
    }

    /// A pool for `postgres://user:password@host:port/database` (TLS off; on loopback or a private network).
    public convenience init(url: String, maximumConnections: Int = 20, logger: Logger = Logger(label: "peez.postgres")) throws {
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? ""),
              let host = components.host, let user = components.user
        else {
            throw PostgresURLError(url: url)
        }
        var configuration = PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: user, password: components.password,
            database: components.path.count > 1 ? String(components.path.dropFirst()) : nil, tls: .disable)
        configuration.options.maximumConnections = maximumConnections
        self.init(client: PostgresClient(configuration: configuration, backgroundLogger: logger), logger: logger)
    }

    /// Runs the connection pool until the task is cancelled.
    public func run() async { await client.run() }

    public func read<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await client.withConnection { connection in
            try await body(PostgresExecutor(connection: connection, logger: logger))
        }
    }

    public func writeStatement(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try await client.withConnection { connection in
            try await PostgresExecutor(connection: connection, logger: logger).query(sql, binds)
        }
    }

    public func write<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        do {
            return try await client.withTransaction(logger: logger) { connection in
                try await body(PostgresExecutor(connection: connection, logger: logger))
            }
        } catch let error as PostgresTransactionError {
            // Surface what the closure threw (a MembershipError, a unique violation), not the wrapper.
            if let closureError = error.closureError { throw closureError }
            throw error
        }
    }
}

/// A database URL that is not `postgres://user[:password]@host[:port]/database`.
public struct PostgresURLError: Error, CustomStringConvertible {
    public let url: String
    public var description: String {
        "the database URL must look like postgres://user:password@host:5432/database"
    }
}

/// Runs statements on one PostgreSQL connection: `?` placeholders become `$1…`, values and unique
/// violations are translated.
struct PostgresExecutor: SQLExecutor {
    let connection: PostgresConnection
    let logger: Logger

    func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        var bindings = PostgresBindings(capacity: binds.count)
        for value in binds {
            switch value {
            case .int(let number): bindings.append(number)
            case .text(let text): bindings.append(text)
            case .blob(let bytes): bindings.append(ByteBuffer(bytes: bytes))
            case .null: bindings.appendNull()
            }
        }
        do {
            let rows = try await connection.query(PostgresQuery(unsafeSQL: Self.numberedPlaceholders(sql), binds: bindings), logger: logger)
            var result: [SQLRow] = []
            for try await row in rows {
                var values: [String: SQLValue] = [:]
                for cell in row { values[cell.columnName] = try Self.value(of: cell) }
                result.append(SQLRow(values: values))
            }
            return result
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw SQLError.uniqueViolation(error.serverInfo?[.constraintName] ?? "unique")
        }
    }

    private static func value(of cell: PostgresCell) throws -> SQLValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int8: return .int(try cell.decode(Int64.self))
        case .int4: return .int(Int64(try cell.decode(Int32.self)))
        case .int2: return .int(Int64(try cell.decode(Int16.self)))
        case .bytea: return .blob(Array(try cell.decode(ByteBuffer.self).readableBytesView))
        default: return .text(try cell.decode(String.self))
        }
    }

    /// Rewrites `?` as `$1`, `$2`, …; the store's SQL has no `?` inside string literals.
    static func numberedPlaceholders(_ sql: String) -> String {
        var result = ""
        result.reserveCapacity(sql.count + 16)
        var number = 0
        for character in sql {
            if character == "?" {
                number += 1
                result += "$\(number)"
            } else {
                result.append(character)
            }
        }
        return result
    }
}
