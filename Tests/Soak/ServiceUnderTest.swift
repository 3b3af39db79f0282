public import Foundation
import PeezBasics
import TestSupport

/// The ledger a run's instances share: an SQLite file of the run, or a PostgreSQL server of the run's own that
/// the faults may crash and start again.
public enum SoakStore: String, Sendable, CaseIterable {
    case sqlite, postgres
}

/// What the instances of a run share: their keys, the admin secret, the ledger (and its PostgreSQL server).
final class Deployment: @unchecked Sendable {
    let peez: String
    let folder: String
    let store: SoakStore
    let postgres: PostgresServer?
    /// Between the instances and PostgreSQL.
    private(set) var databaseProxy: FaultyProxy?
    private(set) var adminSecret = ""

    init(peez: String, folder: String, store: SoakStore) throws {
        self.peez = peez
        self.folder = folder
        self.store = store
        postgres = store == .postgres ? try PostgresServer() : nil
    }

    /// The options that name the ledger, for the command line.
    var ledgerArguments: [String] {
        postgres.map { ["--database-url", $0.url] } ?? ["--database", folder + "/ledger.sqlite"]
    }

    /// The options that name the ledger, for an instance: PostgreSQL through the faulty proxy.
    var instanceLedgerArguments: [String] {
        guard let postgres, let databaseProxy else { return ledgerArguments }
        return ["--database-url", postgres.url.replacingOccurrences(of: ":\(postgres.port)/", with: ":\(databaseProxy.port)/")]
    }

    /// Makes the keys and the ledger with an admin credential (starting the PostgreSQL server first, and the
    /// proxy in front of it drawn from `random`).
    func prepare(random: SplitMix64) async throws {
        if let postgres {
            try postgres.start()
            databaseProxy = try FaultyProxy(name: "database proxy", target: postgres.port, odds: .database, random: random)
        }
        try await run(["keys", "generate", "--out", folder + "/keys"])
        adminSecret = try await run(["admin", "create-token", "--role", "admin"] + ledgerArguments + ["--create-database"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Removes the PostgreSQL server and its proxy, if the run had one.
    func remove() {
        databaseProxy?.stop()
        postgres?.remove()
    }

    @discardableResult
    private func run(_ arguments: [String]) async throws -> String {
        let result = try await ProcessRunner.run([peez] + arguments)
        guard result.status == 0 else { throw SoakError("peez \(arguments.prefix(2).joined(separator: " ")) failed: \(result.standardError)") }
        return result.standardOutput
    }
}

/// One `peez serve` process of a run, started, killed with SIGKILL and started again on the same port.
final class ServiceUnderTest: @unchecked Sendable {
    let deployment: Deployment
    let name: String
    let port: Int
    private var process: ChildProcess?
    private var starts = 0

    init(_ deployment: Deployment, name: String) {
        self.deployment = deployment
        self.name = name
        port = TestPorts.unused()
    }

    private var readyFile: String { deployment.folder + "/\(name).ready" }
    private var logFile: String { deployment.folder + "/\(name)-\(starts).log" }

    /// Starts the service and waits until it says its socket listens. A start that fails (its database's
    /// connection cut by the proxy while it migrates: it exits with one sentence) is tried again, as systemd's
    /// `Restart=on-failure` does, up to 5 times.
    func start() async throws {
        for attempt in 1...5 {
            if try await startOnce() { return }
            guard attempt < 5 else { throw SoakError("\(name) did not start in 5 attempts; the last said: \(log)") }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    /// Starts the service once: true when it says its socket listens, false when it exits first.
    private func startOnce() async throws -> Bool {
        try? FileManager.default.removeItem(atPath: readyFile)
        starts += 1
        let folder = deployment.folder
        let process = try ChildProcess(
            deployment.peez,
            ["serve", "--host", "127.0.0.1", "--port", String(port), "--ready-file", readyFile] + deployment.instanceLedgerArguments + [
                "--signing-key", folder + "/keys/signing-key.pem", "--published-keys", folder + "/published",
            ],
            standardError: .file(logFile)
        )
        self.process = process
        let begun = ContinuousClock.now
        while !FileManager.default.fileExists(atPath: readyFile) {
            guard process.isRunning else {
                self.process = nil
                return false
            }
            guard begun.duration(to: .now) < .seconds(120) else { throw SoakError("\(name) was not ready within 120 s: \(log)") }
            try await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    /// Kills the service with SIGKILL: no shutdown code runs.
    func kill() async {
        guard let process else { return }
        process.kill9()
        _ = await process.exited()
        self.process = nil
    }

    /// Stops the service with SIGTERM, as systemd does.
    func stop() async {
        guard let process else { return }
        process.terminate()
        _ = await process.exited()
        self.process = nil
    }

    /// The end of what the last start wrote to standard error.
    var log: String {
        String((try? String(contentsOfFile: logFile, encoding: .utf8))?.suffix(2_000) ?? "")
    }
}

/// A run that could not be carried out (not a violation: the service could not even be started).
public struct SoakError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
