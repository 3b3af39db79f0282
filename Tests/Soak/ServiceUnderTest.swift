public import Foundation
import TestSupport

/// The `peez serve` process a run drives (its own keys and SQLite ledger in a folder of the run), started,
/// killed with SIGKILL and started again on the same port.
public final class ServiceUnderTest: @unchecked Sendable {
    public let peez: String
    public let folder: String
    public let port: Int
    /// The admin secret, made with `peez admin create-token` before the first start.
    public private(set) var adminSecret = ""
    private var process: ChildProcess?
    private var starts = 0

    public init(peez: String, folder: String) {
        self.peez = peez
        self.folder = folder
        self.port = TestPorts.unused()
    }

    var database: String { folder + "/ledger.sqlite" }
    var readyFile: String { folder + "/ready" }

    /// Makes the keys and the ledger with an admin credential.
    public func prepare() async throws {
        try await run(["keys", "generate", "--out", folder + "/keys"])
        adminSecret = try await run(["admin", "create-token", "--role", "admin", "--database", database, "--create-database"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Starts the service and waits until it says its socket listens.
    public func start() async throws {
        try? FileManager.default.removeItem(atPath: readyFile)
        starts += 1
        let process = try ChildProcess(
            peez,
            [
                "serve", "--host", "127.0.0.1", "--port", String(port), "--ready-file", readyFile, "--database", database,
                "--signing-key", folder + "/keys/signing-key.pem", "--published-keys", folder + "/published",
            ],
            standardError: .file(folder + "/serve-\(starts).log")
        )
        self.process = process
        let begun = ContinuousClock.now
        while !FileManager.default.fileExists(atPath: readyFile) {
            guard process.isRunning else { throw SoakError("peez serve exited with status \(process.terminationStatus): \(log)") }
            guard begun.duration(to: .now) < .seconds(120) else { throw SoakError("peez serve was not ready within 120 s: \(log)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Kills the service with SIGKILL: no shutdown code runs.
    public func kill() async {
        guard let process else { return }
        process.kill9()
        _ = await process.exited()
        self.process = nil
    }

    /// Stops the service with SIGTERM, as systemd does.
    public func stop() async {
        guard let process else { return }
        process.terminate()
        _ = await process.exited()
        self.process = nil
    }

    /// The end of what the last start wrote to standard error.
    var log: String {
        String((try? String(contentsOfFile: folder + "/serve-\(starts).log", encoding: .utf8))?.suffix(2_000) ?? "")
    }

    @discardableResult
    private func run(_ arguments: [String]) async throws -> String {
        let result = try await ProcessRunner.run([peez] + arguments)
        guard result.status == 0 else { throw SoakError("peez \(arguments.prefix(2).joined(separator: " ")) failed: \(result.standardError)") }
        return result.standardOutput
    }
}

/// A run that could not be carried out (not a violation: the service could not even be started).
public struct SoakError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
