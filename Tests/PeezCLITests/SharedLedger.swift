import Foundation
import TestSupport
import Testing

/// A throwaway PostgreSQL server holding a PEEZ ledger, for tests that run several `peez serve` on one database:
/// an admin secret made by `peez admin create-token`, a signing key of the test's own, and the arguments each
/// instance takes.
struct SharedLedger {
    let postgres: PostgresServer
    let folder: TemporaryFolder
    let adminSecret: String
    let arguments: [String]

    static func make(adminLabel: String = "created with peez admin create-token") async throws -> SharedLedger {
        let postgres = try await onOwnThread { try PostgresServer() }
        try await onOwnThread { try postgres.start() }
        let folder = try TemporaryFolder()
        #expect(try await PeezCommand.run(["keys", "generate", "--out", folder.file("keys")]).status == 0)
        let admin = try await PeezCommand.run([
            "admin", "create-token", "--role", "admin", "--label", adminLabel, "--database-url", postgres.url, "--create-database",
        ])
        try #require(admin.status == 0, "\(admin.standardError)")
        return SharedLedger(
            postgres: postgres,
            folder: folder,
            adminSecret: admin.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines),
            arguments: [
                "--database-url", postgres.url, "--database-connections", "4",
                "--signing-key", folder.file("keys/signing-key.pem"), "--published-keys", folder.file("published"),
            ]
        )
    }

    /// Two instances on the ledger, each ready.
    func startInstances() async throws -> [ServiceProcess] {
        var instances: [ServiceProcess] = []
        for _ in 0..<2 { instances.append(try ServiceProcess(arguments: arguments, port: TestPorts.unused())) }
        for instance in instances { try await instance.waitUntilReady() }
        return instances
    }

    func remove() {
        postgres.remove()
        folder.remove()
    }
}
