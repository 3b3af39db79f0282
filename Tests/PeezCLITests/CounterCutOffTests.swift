import Foundation
import PeezAPI
import TestSupport
import Testing

/// A counter PEEZ cut off (issue 43, item 2), against a real `peez serve --development`: once the service refuses
/// the counter's own credential (revoked, or replaced and expired), the counter forgets its secret, its trust data
/// and its scan log, keeps only the sales whose cash goes back, and every later command refuses with the cut-off in
/// the shop's language, a running session included, until it is enrolled again with a new code. A lost network
/// is no cut-off.
@Suite("A counter cut off", .serialized)
struct CounterCutOffTests {
    static let admin = "peez_admin_DEVELOPMENT_ONLY_not_a_secret"
    static let backend = "peez_backend_DEVELOPMENT_ONLY_not_a_secret"
    static let demoMember = "00000000-0000-4000-8000-000000000001"
    static let revokedLine = "L'accès de ce comptoir a été coupé par PEEZ le"
    static let giveBack = "Rendez l'argent"

    /// A service on a fresh ledger, the demo shop's id, and a one-time code maker for it.
    struct Shop {
        let service: ServiceProcess
        let vendorID: String

        var url: String { "http://127.0.0.1:\(service.port)" }

        func newCode() async throws -> String {
            let made = try await service.request(
                "POST",
                "/v1/vendors/\(vendorID)/enrolment-codes",
                secret: CounterCutOffTests.admin,
                json: [:],
                as: EnrolmentCodeBody.self
            )
            return try #require(made.body?.code, "an enrolment code: \(made.status)")
        }

        /// The id of the credential enrolled under `label`.
        func credential(_ label: String) async throws -> String {
            let listed = try await service.request(
                "GET",
                "/v1/vendors/\(vendorID)/credentials",
                secret: CounterCutOffTests.admin,
                as: CredentialListBody.self
            )
            return try #require(listed.body?.credentials.first { $0.label == label && $0.state == "active" }?.id, "the credential '\(label)'")
        }
    }

    static func shop(_ folder: TemporaryFolder, port: Int = TestPorts.unused()) async throws -> Shop {
        let service = try ServiceProcess(arguments: ["--development", "--database", folder.file("ledger.sqlite")], port: port)
        try await service.waitUntilReady()
        let vendors = try await service.request("GET", "/v1/vendors", secret: admin, as: VendorListBody.self)
        return Shop(service: service, vendorID: try #require(vendors.body?.vendors.first?.id, "the demo shop"))
    }

    /// Whether `condition` held within `bound`, asked every 50 ms.
    static func within(_ bound: Duration, _ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + bound
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(50))
        }
        return true
    }

    /// `peez counter` on the folder `name`, with no vendor secret in the environment (the enrolled one is used).
    static func counter(_ folder: TemporaryFolder, _ name: String = "counter") -> [String] {
        ["PEEZ_COUNTER_HOME=" + folder.file(name), "PEEZ_VENDOR_SECRET=", "LANG=C.UTF-8", PeezCommand.binary, "counter"]
    }

    /// What of the counter's folder is left: its files' names.
    static func files(_ folder: TemporaryFolder, _ name: String = "counter") -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: folder.file(name))) ?? [])
    }

    @Test func aRevokedCounterForgetsItsSecretAndTrustDataAndChecksNoCardUntilEnrolledAgain() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let shop = try await Self.shop(folder)
        defer { shop.service.killHard() }
        let counter = Self.counter(folder)
        let enrolled = try await ProcessRunner.run(
            counter + ["enroll", "--server", shop.url, "--code", try await shop.newCode(), "--label", "till 1"]
        )
        #expect(enrolled.status == 0, "\(enrolled.standardError)")
        let member = try await shop.service.request("GET", "/v1/members/\(Self.demoMember)", secret: Self.backend)
        let name = try #require(member.body["name"] as? String)
        let card = try await shop.service.request("GET", "/v1/members/\(Self.demoMember)/card", secret: Self.backend)
        let token = try #require(card.body["token"] as? String)
        let before = try await ProcessRunner.run(counter + ["--json"], input: Data((token + "\n").utf8))
        #expect(before.standardOutput.contains("\"verdict\": \"valid\"") && before.standardOutput.contains(name), "\(before.standardOutput)")

        // A lost network is no cut-off: the service down, the sync fails and the counter still answers.
        shop.service.killHard()
        let unreachable = try await ProcessRunner.run(counter + ["sync", "--lang", "fr"])
        #expect(unreachable.status != 0 && !unreachable.standardError.contains(Self.revokedLine), "\(unreachable.standardError)")
        #expect(Self.files(folder).isSuperset(of: ["vendor-secret", "state.json"]) && !Self.files(folder).contains("cut-off.json"))
        let offline = try await ProcessRunner.run(counter + ["--json"], input: Data((token + "\n").utf8))
        #expect(offline.standardOutput.contains("\"verdict\": \"valid\""), "\(offline.standardOutput)\(offline.standardError)")
        let back = try ServiceProcess(arguments: ["--development", "--database", folder.file("ledger.sqlite")], port: shop.service.port)
        defer { back.killHard() }
        try await back.waitUntilReady()
        let running = Shop(service: back, vendorID: shop.vendorID)

        // A session open all day, beside which the cut-off is found by a sync.
        let session = try CounterSessionTests.LiveSession(
            ["counter", "--sync-every", "0", "--lang", "fr"],
            environment: ["PEEZ_COUNTER_HOME": folder.file("counter"), "PEEZ_VENDOR_SECRET": "", "LANG": "C.UTF-8"]
        )
        defer { session.finish() }
        #expect(try await session.scan(token).contains("VALIDE"))

        // The operator revokes the till's credential.
        let revoked = try await back.request("POST", "/v1/credentials/\(try await running.credential("till 1"))/revoke", secret: Self.admin)
        #expect(revoked.status == 200)
        let sync = try await ProcessRunner.run(counter + ["sync", "--lang", "fr"])
        #expect(sync.status == 1 && sync.standardError.contains(Self.revokedLine), "\(sync.standardOutput)\(sync.standardError)")
        #expect(sync.standardError.contains("Il ne peut plus vérifier de cartes"), "\(sync.standardError)")
        #expect(!sync.standardError.contains(Self.giveBack), "no sale waits: no money to give back: \(sync.standardError)")
        #expect(sync.standardError.contains("peez counter enroll"), "how to bring it back: \(sync.standardError)")
        // Nothing left to verify with, or to sell with: no secret, no trust data, no scan log.
        #expect(Self.files(folder) == ["cut-off.json"], "\(Self.files(folder))")

        // The session open beside it answers the next scan with the cut-off, not a verdict, and ends.
        session.type(token)
        let ended = try await Self.within(.seconds(20)) { !session.process.isRunning }
        #expect(ended && session.process.terminationStatus == 1, "\(session.standardOutput)\(session.standardError)")
        #expect(session.standardOutput.components(separatedBy: "VALIDE").count == 2, "one verdict, before: \(session.standardOutput)")
        #expect(session.standardError.contains(Self.revokedLine), "\(session.standardError)")

        // Every later command refuses at once, in the shop's language, with no verdict and no member's name.
        let commands: [(String, [String], String)] = [
            ("fr", ["session", "--lang", "fr", "--json"], Self.revokedLine),
            ("ar", ["--lang", "ar"], "قطعت PEEZ وصول هذا الشباك"),
            ("en", ["activate", "--months", "1", "--paid", "300", "--token", token], "This counter's access was cut off by PEEZ on"),
            ("en", ["sync"], "It can no longer check cards"),
            ("en", ["retry"], "It can no longer check cards"),
            ("en", ["pending"], "It can no longer check cards"),
            ("en", ["log"], "It can no longer check cards"),
        ]
        for (language, arguments, said) in commands {
            let result = try await ProcessRunner.run(counter + arguments, input: Data((token + "\n").utf8))
            let output = result.standardOutput + result.standardError
            #expect(result.status == 1 && result.standardError.contains(said), "\(language) \(arguments): \(output)")
            #expect(!output.contains(name) && !output.lowercased().contains("valid"), "\(arguments): nothing verified: \(output)")
        }
        // The service was never asked: the sale above was not sent, nothing was kept in its name.
        let refused = try await back.request("GET", "/v1/refused-sales", secret: Self.admin, as: RefusedSaleListBody.self)
        #expect(refused.body?.refused_sales.isEmpty == true, "\(String(describing: refused.body))")

        // Still cut off after the service restarts: only a new code brings the counter back.
        back.killHard()
        let again = try ServiceProcess(arguments: ["--development", "--database", folder.file("ledger.sqlite")], port: back.port)
        defer { again.killHard() }
        try await again.waitUntilReady()
        let restarted = try await ProcessRunner.run(counter + ["--json"], input: Data((token + "\n").utf8))
        #expect(restarted.status == 1 && restarted.standardOutput.isEmpty, "\(restarted.standardOutput)\(restarted.standardError)")
        let returned = Shop(service: again, vendorID: shop.vendorID)
        let reenrolled = try await ProcessRunner.run(
            counter + ["enroll", "--server", returned.url, "--code", try await returned.newCode(), "--label", "till 1b"]
        )
        #expect(reenrolled.status == 0, "\(reenrolled.standardError)")
        #expect(!Self.files(folder).contains("cut-off.json") && Self.files(folder).contains("vendor-secret"), "\(Self.files(folder))")
        let after = try await ProcessRunner.run(counter + ["--json"], input: Data((token + "\n").utf8))
        #expect(after.status == 0 && after.standardOutput.contains("\"verdict\": \"valid\""), "\(after.standardOutput)\(after.standardError)")
        #expect(try await ProcessRunner.run(counter + ["sync"]).status == 0)
    }

    @Test func aCutOffFoundAtASaleOrWithSalesWaitingListsTheCashToGiveBackAndNeverSendsItAgain() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let shop = try await Self.shop(folder)
        var service = shop.service
        defer { service.killHard() }
        let counter = Self.counter(folder)
        #expect(
            try await ProcessRunner.run(counter + ["enroll", "--server", shop.url, "--code", try await shop.newCode(), "--label", "till 2"]).status
                == 0
        )
        let member = try await service.request("GET", "/v1/members/\(Self.demoMember)", secret: Self.backend)
        let membershipID = try #require(member.body["membership_id"] as? String)
        let sale = ["activate", "--months", "1", "--paid", "300", "--membership-id", membershipID, "--attempts", "1", "--lang", "fr"]

        // A sale made while the service is down stays pending.
        service.killHard()
        let unsent = try await ProcessRunner.run(counter + sale)
        #expect(unsent.status == 1 && unsent.standardOutput.contains("NON CONFIRMÉ"), "\(unsent.standardOutput)")
        service = try ServiceProcess(arguments: ["--development", "--database", folder.file("ledger.sqlite")], port: shop.service.port)
        try await service.waitUntilReady()
        let running = Shop(service: service, vendorID: shop.vendorID)
        let activationsBefore = try await service.request("GET", "/v1/activations?limit=1000", secret: Self.admin, as: ActivationListBody.self)
        #expect(
            try await service.request("POST", "/v1/credentials/\(try await running.credential("till 2"))/revoke", secret: Self.admin).status == 200
        )

        // The next sale is refused, and the cut-off lists both sales: their cash goes back.
        let next = try await ProcessRunner.run(counter + sale)
        #expect(next.status == 1 && next.standardOutput.contains("REFUSÉ"), "\(next.standardOutput)")
        #expect(next.standardError.contains(Self.revokedLine) && next.standardError.contains(Self.giveBack), "\(next.standardError)")
        let listed = next.standardError.components(separatedBy: "\n").filter { $0.contains(membershipID) && $0.contains("300 DZD") }
        #expect(listed.count == 2, "the sale refused now and the one kept offline: \(next.standardError)")
        // The one kept offline was sent once more before the secret went: the operator finds both.
        let refused = try await service.request("GET", "/v1/refused-sales", secret: Self.admin, as: RefusedSaleListBody.self)
        #expect(
            refused.body?.refused_sales.count == 2 && refused.body?.refused_sales.allSatisfy { $0.reason == "credential_revoked" } == true,
            "\(String(describing: refused.body))"
        )
        #expect(Self.files(folder) == ["cut-off.json", "sales.journal"], "\(Self.files(folder))")
        let pending = try await ProcessRunner.run(counter + ["pending", "--lang", "fr"])
        #expect(pending.status == 1 && pending.standardError.components(separatedBy: "300 DZD").count - 1 == 2, "\(pending.standardError)")

        // Enrolled again: those sales are closed (the cash went back), never sent under the new credential.
        let code = try await running.newCode()
        #expect(try await ProcessRunner.run(counter + ["enroll", "--server", running.url, "--code", code, "--label", "till 2b"]).status == 0)
        let retried = try await ProcessRunner.run(counter + ["retry"])
        #expect(retried.status == 0, "\(retried.standardOutput)\(retried.standardError)")
        #expect(try await ProcessRunner.run(counter + ["pending"]).standardOutput.contains("no pending sale"))
        let activationsAfter = try await service.request("GET", "/v1/activations?limit=1000", secret: Self.admin, as: ActivationListBody.self)
        #expect(activationsAfter.body?.activations.count == activationsBefore.body?.activations.count, "nothing sold from the old sales")
    }

    @Test func aReplacedCredentialWhoseGraceEndedCutsTheCounterOffToo() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let shop = try await Self.shop(folder)
        defer { shop.service.killHard() }
        let counter = Self.counter(folder)
        #expect(
            try await ProcessRunner.run(counter + ["enroll", "--server", shop.url, "--code", try await shop.newCode(), "--label", "till 3"]).status
                == 0
        )
        let rotated = try await shop.service.request(
            "POST",
            "/v1/credentials/\(try await shop.credential("till 3"))/rotate",
            secret: Self.admin,
            json: ["grace_seconds": 1]
        )
        #expect(rotated.status == 200 || rotated.status == 201, "\(rotated.body)")
        // The old secret works one second more (a grace of 0 would revoke it): then it is refused as expired.
        try await Task.sleep(for: .milliseconds(2_100))
        let sync = try await ProcessRunner.run(counter + ["sync", "--lang", "fr"])
        #expect(sync.status == 1 && sync.standardError.contains("Le secret de ce comptoir a été remplacé par PEEZ"), "\(sync.standardError)")
        #expect(!sync.standardError.contains(Self.giveBack), "\(sync.standardError)")
        #expect(Self.files(folder) == ["cut-off.json"], "\(Self.files(folder))")
    }
}
