import Foundation

/// A PostgreSQL server of a test's own, from Debian's packages, that the test may crash and start again.
///
/// The cluster lives in a temporary folder, listens on `127.0.0.1:port` only and trusts local connections
/// (test data only). As root, the server runs as the `postgres` system user, as PostgreSQL requires.
public final class PostgresServer: @unchecked Sendable {
    public let port: Int
    private let folder: TemporaryFolder
    private let binaries: String

    /// Creates a new, empty cluster (not started yet).
    public init() throws {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        guard let newest = versions.sorted(by: { $0.compare($1, options: .numeric) == .orderedAscending }).last else {
            throw PostgresServerError("PostgreSQL is not installed under /usr/lib/postgresql (make deps installs it)")
        }
        binaries = "/usr/lib/postgresql/\(newest)/bin"
        port = TestPorts.unused()
        folder = try TemporaryFolder()
        if getuid() == 0 {
            guard let owner = getpwnam("postgres") else { throw PostgresServerError("no postgres system user") }
            chmod(folder.path, 0o755)
            chown(folder.path, owner.pointee.pw_uid, owner.pointee.pw_gid)
        }
        try asOwner(["\(binaries)/initdb", "-D", dataFolder, "-U", "peez", "--auth=trust", "-E", "UTF8"])
    }

    /// The URL of the cluster's `postgres` database.
    public var url: String { "postgres://peez@127.0.0.1:\(port)/postgres" }

    private var dataFolder: String { folder.file("data") }

    /// Starts the server (after a crash, PostgreSQL recovers from its write-ahead log first) and waits until it
    /// accepts connections.
    public func start() throws {
        try asOwner([
            "\(binaries)/pg_ctl", "-D", dataFolder, "-l", folder.file("server.log"), "-w", "-t", "60",
            "-o", "-c listen_addresses=127.0.0.1 -p \(port) -k \(dataFolder) -c fsync=on -c max_connections=100", "start",
        ])
    }

    /// Stops the server the way a crash does: every PostgreSQL process quits at once, with no checkpoint and
    /// nothing flushed that was not already handed to the operating system (`pg_ctl -m immediate`).
    public func crash() throws {
        try asOwner(["\(binaries)/pg_ctl", "-D", dataFolder, "-m", "immediate", "-w", "stop"])
    }

    /// Stops the server as an administrator does (`pg_ctl -m fast`): open sessions are told the server is
    /// shutting down and closed, transactions under way roll back, and a checkpoint is written.
    public func stop() throws {
        try asOwner(["\(binaries)/pg_ctl", "-D", dataFolder, "-m", "fast", "-w", "stop"])
    }

    /// Runs `sql` with psql and returns its unaligned, tuples-only output.
    public func psql(_ sql: String) throws -> String {
        let result = try ProcessRunner.run(["psql", url, "-v", "ON_ERROR_STOP=1", "-X", "-A", "-t", "-c", sql])
        guard result.status == 0 else { throw PostgresServerError("psql failed: \(result.standardError)") }
        return result.standardOutput
    }

    /// Stops the server if it runs, and removes the cluster.
    public func remove() {
        _ = try? asOwner(["\(binaries)/pg_ctl", "-D", dataFolder, "-m", "immediate", "-w", "stop"])
        folder.remove()
    }

    /// Runs `command` as the cluster's owner.
    private func asOwner(_ command: [String]) throws {
        let asOwner = getuid() == 0 ? ["runuser", "-u", "postgres", "--"] : []
        let result = try ProcessRunner.run(asOwner + command, timeout: 120)
        guard result.status == 0 else {
            throw PostgresServerError("\(command.first ?? "") failed (\(result.status)): \(result.standardError)\(result.standardOutput)")
        }
    }
}

/// A test's PostgreSQL server could not be made, started or stopped.
public struct PostgresServerError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
