import Foundation
import PeezAPI
import TestSupport
import Testing

@Suite("Durability of the running service")
struct DurabilityTests {
    @Test func acknowledgedActivationSurvivesKillNine() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let generated = try await PeezCommand.run(["keys", "generate", "--out", folder.file("keys")])
        #expect(generated.status == 0)
        let database = folder.file("ledger.sqlite")
        let admin = try await PeezCommand.run(["admin", "create-token", "--role", "admin", "--database", database, "--create-database"])
        let adminSecret = admin.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(admin.status == 0 && adminSecret.hasPrefix("peez_admin_"), "\(admin.standardError)")
        let arguments = ["--database", database, "--signing-key", folder.file("keys/signing-key.pem"), "--published-keys", folder.file("published")]
        let port = TestPorts.unused()

        var service = try ServiceProcess(arguments: arguments, port: port)
        try await service.waitUntilReady()
        let vendor = try await service.request(
            "POST",
            "/v1/vendors",
            secret: adminSecret,
            json: ["name": "Boucherie Centrale", "category": "boucherie", "neighbourhood": "centre-ville"]
        )
        let vendorSecret = try #require(vendor.body["api_secret"] as? String)
        let memberUUID = UUID().uuidString.lowercased()
        let member = try await service.request(
            "POST",
            "/v1/members",
            secret: adminSecret,
            json: [
                "uuid": memberUUID, "name": "Ahmed Mohamed", "phone": "+213550000001", "email": "ahmed@example.dz", "neighbourhood": "usto",
            ]
        )
        let membershipID = try #require(member.body["membership_id"] as? String)

        // The wire itself: the sale's body as a counter sends it; the replay is compared byte for byte.
        let sale: [String: Any] = ["membership_id": membershipID, "months": 3, "amount_dzd": 900]
        let activated = try await service.request("POST", "/v1/activations", secret: vendorSecret, json: sale, headers: ["Idempotency-Key": "sale-1"])
        #expect(activated.status == 201)
        service.killHard()

        service = try ServiceProcess(arguments: arguments, port: port)
        try await service.waitUntilReady()
        let subscription = try await service.request("GET", "/v1/members/\(memberUUID)/subscription", secret: adminSecret, as: SubscriptionBody.self)
        let periods = try #require(subscription.body?.periods)
        #expect(periods.count == 1 && periods.first?.months == 3, "the acknowledged sale is on disk")
        let retry = try await service.request("POST", "/v1/activations", secret: vendorSecret, json: sale, headers: ["Idempotency-Key": "sale-1"])
        #expect(retry.status == 201 && retry.data == activated.data, "a retry after the crash replays the first answer")
        service.killHard()
    }

    @Test func productionRefusesTheDevelopmentKey() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let key = folder.file("dev.pem")
        try FileManager.default.copyItem(atPath: repositoryRoot.appendingPathComponent("Keys/development/signing-key.pem").path, toPath: key)
        chmod(key, 0o600)
        let refused = try PeezCommand.run(["serve", "--signing-key", key, "--database", folder.file("db.sqlite"), "--port", "1"])
        #expect(refused.status == 2)
        #expect(refused.standardError.contains("development key"))
        let noKey = try PeezCommand.run(["serve", "--database", folder.file("db.sqlite")])
        #expect(noKey.status == 2 && noKey.standardError.contains("--signing-key"))
    }

    @Test func aPoolSizeOutOfRangeIsRefusedBeforeAnythingStarts() throws {
        let refused = try PeezCommand.run(["serve", "--development", "--database-connections", "0"])
        #expect(refused.status == 2 && refused.standardError.contains("--database-connections must be 1 to 100"))
    }

    @Test func aDatabaseFolderPeezCreatesIsTheOwnersAloneAndAnExposedFileIsWarnedAbout() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.file("state/ledger.sqlite")
        let created = try PeezCommand.run(["admin", "create-token", "--role", "admin", "--database", database, "--create-database"])
        #expect(created.status == 0 && !created.standardError.contains("warning"), "\(created.standardError)")
        var status = stat()
        #expect(stat(folder.file("state"), &status) == 0 && status.st_mode & 0o777 == 0o700)
        #expect(stat(database, &status) == 0 && status.st_mode & 0o777 == 0o600)
        chmod(database, 0o644)
        let warned = try PeezCommand.run(["admin", "create-token", "--role", "admin", "--database", database])
        #expect(
            warned.status == 0 && warned.standardError.contains("warning: \(database)") && warned.standardError.contains("chmod 600"),
            "\(warned.standardError)"
        )
    }
}
