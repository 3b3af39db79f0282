import Foundation
import PeezAPI
import TestSupport
import Testing

/// `peez backup` copies the SQLite ledger while `peez serve` runs on it; the copy, put in place, is served.
@Suite("Backup and restore")
struct BackupTests {
    @Test func commandsThatWriteManyRowsOrSendMessagesNeedTheirLedgerNamed() throws {
        for command in [["dev", "seed", "--members", "1"], ["remind", "run", "--sink", "jsonl:-"]] {
            let result = try ProcessRunner.run(["PEEZ_DATABASE_URL=", PeezCommand.binary] + command)
            #expect(
                result.status == 2 && result.standardError.contains("needs its ledger named: --database FILE"),
                "\(command): \(result.standardError)"
            )
        }
    }

    static let backend = "peez_backend_DEVELOPMENT_ONLY_not_a_secret"
    static let vendor = "peez_vendor_DEVELOPMENT_ONLY_not_a_secret"

    @Test func aBackupTakenWhileServingRestoresEveryMemberAndSale() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let ledger = folder.file("ledger.sqlite")
        let service = try ServiceProcess(arguments: ["--development", "--database", ledger], port: TestPorts.unused())
        defer { service.killHard() }
        try await service.waitUntilReady()
        let uuid = UUID().uuidString.lowercased()
        let created = try await service.request(
            "POST",
            "/v1/members",
            secret: Self.backend,
            json: [
                "uuid": uuid, "name": "Amina Benali", "phone": "+213661234567", "email": "amina@example.dz", "neighbourhood": "usto",
            ]
        )
        let membershipID = try #require(created.body["membership_id"] as? String)
        let sold = try await service.request(
            "POST",
            "/v1/activations",
            secret: Self.vendor,
            json: ["membership_id": membershipID, "months": 2, "amount_dzd": 600],
            headers: ["Idempotency-Key": UUID().uuidString]
        )
        #expect(sold.status == 201)

        let backup = folder.file("backups/ledger-copy.sqlite")
        try FileManager.default.createDirectory(atPath: folder.file("backups"), withIntermediateDirectories: true)
        let taken = try await ProcessRunner.run([PeezCommand.binary, "backup", "--database", ledger, backup])
        #expect(taken.status == 0 && taken.standardOutput.contains("backed up"), "\(taken.standardError)")
        var info = stat()
        #expect(stat(backup, &info) == 0 && info.st_mode & 0o777 == 0o600, "members' personal data: 0600")
        await #expect(try ProcessRunner.run([PeezCommand.binary, "backup", "--database", ledger, backup]).status == 2, "never overwrites")
        #expect(try await service.request("GET", "/health").status == 200, "the service kept serving")

        // Restore: the service stopped, the copy put in the ledger's place, the service started on it.
        service.killHard()
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: ledger + suffix) {
            try FileManager.default.removeItem(atPath: ledger + suffix)
        }
        try FileManager.default.copyItem(atPath: backup, toPath: ledger)
        let restored = try ServiceProcess(arguments: ["--development", "--database", ledger], port: TestPorts.unused())
        defer { restored.killHard() }
        try await restored.waitUntilReady()
        let member = try await restored.request("GET", "/v1/members/\(uuid)", secret: Self.backend)
        #expect(member.status == 200 && member.body["name"] as? String == "Amina Benali")
        let subscription = try await restored.request("GET", "/v1/members/\(uuid)/subscription", secret: Self.backend, as: SubscriptionBody.self)
        #expect(subscription.body?.periods.first?.months == 2, "the sale is in the copy")
        let card = try await restored.request("GET", "/v1/members/\(uuid)/card", secret: Self.backend, as: CardBody.self)
        #expect(card.status == 200 && card.body?.subscription.status == "active")
    }
}
