import ArgumentParser
import Foundation
import Membership
import MembershipPostgres
import MembershipSQL
import MembershipSQLite
import ServiceLifecycle

/// Where the ledger lives: an SQLite file by default, or a PostgreSQL server; and the configuration file every
/// command reads, as the service's unit does (``ConfigurationFile``).
struct StoreOptions: ParsableArguments {
    @Option(
        help:
            "A file of settings, NAME=value a line, as the service's unit reads (or PEEZ_CONFIG; default /etc/peez/peez.env when it exists). A flag wins over the environment, which wins over it."
    )
    var config: String?

    @Option(help: "The SQLite database file (or PEEZ_DATABASE; peez serve creates it when missing; default var/peez.sqlite).")
    var database: String?

    @Option(help: "A PostgreSQL server instead of SQLite: postgres://user:password@host:5432/database (or PEEZ_DATABASE_URL).")
    var databaseURL: String?

    @Option(help: "How many PostgreSQL connections this instance keeps open (1 to 100).")
    var databaseConnections = 8

    /// The PostgreSQL URL in force: the flag, the environment or the configuration file.
    var effectiveDatabaseURL: String? { get throws { try setting("PEEZ_DATABASE_URL", flag: databaseURL) } }

    /// The SQLite file named by the flag, the environment or the configuration file; nil when none names one.
    var namedDatabase: String? { get throws { try setting("PEEZ_DATABASE", flag: database) } }

    /// The setting `name`: `flag`, else the environment, else this command's configuration file.
    func setting(_ name: String, flag: String? = nil, builtIn: String? = nil) throws -> String? {
        ConfigurationFile.use(config)
        return try SettingsReader.current(name, flag: flag, builtIn: builtIn)
    }

    /// The ledger `peez serve` and the administrative commands use when none is named: `make serve`'s.
    static let developmentLedger = "var/peez.sqlite"

    /// The SQLite file: the one named, else the development service's.
    var sqlitePath: String { get throws { try namedDatabase ?? Self.developmentLedger } }

    /// The address links printed for phones and browsers start with: `flag`, else PEEZ_PUBLIC_URL (the
    /// environment or the configuration file), else the address the service listens on by the same settings. A
    /// link on a loopback address is warned about (only this machine reaches it); one on a wildcard address
    /// (0.0.0.0, ::), which nobody reaches, is refused.
    func linkBase(flag: String?) throws -> String {
        if let url = try setting("PEEZ_PUBLIC_URL", flag: flag) { return url }
        let host = try setting("PEEZ_HOST", builtIn: "127.0.0.1")!
        let port = try setting("PEEZ_PORT", builtIn: "8080")!
        let scheme = try setting("PEEZ_TLS_CERTIFICATE") == nil ? "http" : "https"
        let base = "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        if ["0.0.0.0", "::", "[::]"].contains(host) {
            throw ValidationError(
                "PEEZ_PUBLIC_URL is not set and the service listens on every address (\(host)): a link needs the address phones reach; set PEEZ_PUBLIC_URL (e.g. https://cards.peez.dz) in \(ConfigurationFile.path ?? ConfigurationFile.installed) or give --public-url"
            )
        }
        if host == "localhost" || host == "::1" || host.hasPrefix("127.") {
            printError(
                "warning: PEEZ_PUBLIC_URL is not set: this link names \(base), a loopback address only this machine reaches; set PEEZ_PUBLIC_URL (e.g. https://cards.peez.dz) in \(ConfigurationFile.path ?? ConfigurationFile.installed) or give --public-url"
            )
        }
        return base
    }

    /// For commands that write many rows or send messages (`dev seed`, `remind run`): the ledger must be named,
    /// so that nobody loads a million test members into, or sends reminders from, a ledger by accident.
    func requireNamedLedger(_ command: String) throws {
        guard try namedDatabase != nil || effectiveDatabaseURL != nil else {
            throw ValidationError(
                "\(command) needs its ledger named: --database FILE (SQLite) or --database-url URL (or PEEZ_DATABASE / PEEZ_DATABASE_URL, in the environment or the configuration file)"
            )
        }
    }

    /// `url` without its password, for messages.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "…"
        return components.string ?? "the URL given"
    }

    func validate() throws {
        guard (1...100).contains(databaseConnections) else { throw ValidationError("--database-connections must be 1 to 100") }
        ConfigurationFile.use(config)
    }

    /// The database these options name, opened but not queried yet.
    func openDatabase() async throws -> OpenedLedger {
        if let url = try effectiveDatabaseURL { return .postgres(try PostgresDatabase(url: url, connections: databaseConnections)) }
        return .sqlite(try await openSQLite())
    }

    /// Opens the SQLite file, creating its folder (0700) if missing; warns if other users can read the files.
    private func openSQLite() async throws -> SQLiteDatabase {
        let path = try sqlitePath
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty { try Self.makeFolder(folder) }
        if let problem = SQLiteDatabase.permissionProblem(path: path) { printError("warning: \(problem)") }
        return try await SQLiteDatabase.open(path: path)
    }

    /// Creates `path` and any missing parents, each 0700 (they hold members' personal data).
    private static func makeFolder(_ path: String) throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
            guard isFolder.boolValue else { throw ValidationError("\(path) is a file, not a folder for the database") }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty && parent != path { try makeFolder(parent) }
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            throw ValidationError("cannot create the folder \(path) for the database: \(String(cString: strerror(errno)))")
        }
    }

    /// Opens the store and runs `body` with it; a PostgreSQL pool runs for as long as `body` does. A PostgreSQL
    /// server that cannot be used fails the command within `reachableWithin` with one sentence; the pool alone
    /// would retry for ever, and a command run from a timer would hang.
    ///
    /// Unless `migrating` is false (`peez check`, which reports what is pending), the ledger is migrated first.
    /// Unless `creating`, the ledger must exist: an SQLite file that is not there, or a PostgreSQL database
    /// without the ledger's schema, is refused with one sentence (a typo in `--database` would otherwise make a
    /// new empty ledger, and a secret or a report from it that the service never sees).
    func withStore<T: Sendable>(
        reachableWithin timeout: Duration = .seconds(10),
        creating: Bool = false,
        migrating: Bool = true,
        _ body: @Sendable (SQLMembershipStore) async throws -> T
    ) async throws -> T {
        if let url = try effectiveDatabaseURL {
            let database = try PostgresDatabase(url: url, connections: databaseConnections)
            try await database.checkReachable(within: timeout)
            return try await withThrowingTaskGroup(of: T?.self) { group in
                group.addTask {
                    await database.run()
                    return nil
                }
                defer { group.cancelAll() }
                await database.poolStarted()
                if !creating {
                    let schema = try await database.read { db in
                        try await db.query("SELECT to_regclass('schema_migrations')::text AS name", []).first?.optionalText("name")
                    }
                    guard schema != nil else {
                        throw ValidationError(
                            "the PostgreSQL database at \(Self.redacted(url)) holds no PEEZ ledger (no schema): is it the service's? start peez serve on it once to create the ledger"
                        )
                    }
                }
                return try await body(
                    migrating ? try await SQLMembershipStore(database: database, now: CardDates.now()) : SQLMembershipStore(opening: database)
                )
            }
        }
        if !creating, case let path = try sqlitePath, !FileManager.default.fileExists(atPath: path) {
            let named = try namedDatabase == nil ? "" : "; the service's default is \(Self.developmentLedger)"
            throw ValidationError(
                "no database at \(path)\(named): check --database, or create the ledger by starting peez serve on it (or with --create-database where the command offers it)"
            )
        }
        let sqlite = try await openSQLite()
        do {
            let value = try await body(
                migrating ? try await SQLMembershipStore(database: sqlite, now: CardDates.now()) : SQLMembershipStore(opening: sqlite)
            )
            try await sqlite.close()
            return value
        } catch {
            try? await sqlite.close()
            throw error
        }
    }
}

/// The ledger's database as `peez` opened it: one handle, with what the service group must run for it and one
/// `close()`, whichever the store.
enum OpenedLedger {
    case sqlite(SQLiteDatabase)
    /// A pool that must run (in the service group) before the first query.
    case postgres(PostgresDatabase)

    var database: any SQLDatabase {
        switch self {
        case .sqlite(let database): return database
        case .postgres(let database): return database
        }
    }

    /// What the service group runs for the database: the PostgreSQL pool and its listener, or SQLite's watch
    /// for changes made by other processes.
    var services: [any Service] {
        switch self {
        case .sqlite(let database): return [database]
        case .postgres(let pool): return [pool]
        }
    }

    /// A PostgreSQL server that cannot be used is one clear error within `timeout`, not a pool retrying for ever.
    func checkReachable(within timeout: Duration) async throws {
        if case .postgres(let pool) = self { try await pool.checkReachable(within: timeout) }
    }

    /// Once the service group runs the pool: waits until it takes queries.
    func poolStarted() async {
        if case .postgres(let pool) = self { await pool.poolStarted() }
    }

    /// Waits for the work under way and closes SQLite; a PostgreSQL pool closes as its service stops.
    func close() async throws {
        if case .sqlite(let database) = self { try await database.close() }
    }
}
