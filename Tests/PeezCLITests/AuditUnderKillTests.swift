import Foundation
import PeezAPI
import TestSupport
import Testing

/// Every operator action writes its audit entry in its own transaction: a service killed (-9) while actions are
/// under way leaves each action with its entry, or neither — on SQLite and on PostgreSQL.
@Suite("Audit entries under kill -9")
struct AuditUnderKillTests {
    @Test(arguments: TestLedger.allCases)
    func revocationsAndACutOffKilledMidwayLeaveEachActionWithItsEntryOrNeither(ledger kind: TestLedger) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (arguments, admin, shared) = try await kind.make(in: folder)
        defer { shared?.remove() }
        let first = try ServiceProcess(arguments: arguments, port: TestPorts.unused())
        try await first.waitUntilReady()
        let service = first
        var shops: [String] = []
        for (name, category) in [("Épicerie du Port", "epicerie"), ("Boucherie", "boucherie")] {
            let made = try await service.request(
                "POST",
                "/v1/vendors",
                secret: admin,
                json: ["name": name, "category": category, "neighbourhood": "usto"],
                as: CreatedVendorBody.self
            )
            shops.append(try #require(made.body?.vendor.id))
        }
        let (vendorID, otherID) = (shops[0], shops[1])
        var devices: [String] = []
        for index in 0..<60 {
            let made = try await service.request(
                "POST",
                "/v1/credentials",
                secret: admin,
                json: ["role": "vendor", "vendor_id": index % 2 == 0 ? vendorID : otherID, "label": "till \(index)"],
                as: IssuedCredentialBody.self
            )
            devices.append(try #require(made.body?.credential.id))
        }
        // Revocations of the other shop's devices and a cut-off of the first shop, all at once; killed midway.
        let firing = Task { [devices] in
            await withTaskGroup(of: Void.self) { group in
                group.addTask { _ = try? await service.request("POST", "/v1/vendors/\(vendorID)/cut-off", secret: admin, timeout: 30) }
                for (index, id) in devices.enumerated() where index % 2 == 1 {
                    group.addTask { _ = try? await service.request("POST", "/v1/credentials/\(id)/revoke", secret: admin, timeout: 30) }
                }
            }
        }
        // Killed once some actions are done and others under way.
        let started = ContinuousClock.now
        while ContinuousClock.now - started < .seconds(5) {
            let done = try? await first.request("GET", "/v1/audit?limit=1000", secret: admin, as: AuditListBody.self).body?.entries
                .filter { $0.action == "credential.revoke" }.count
            if (done ?? 0) >= 6 { break }
            try await Task.sleep(for: .milliseconds(1))
        }
        first.killHard()
        await firing.value
        let restarted = try ServiceProcess(arguments: arguments, port: first.port)
        defer { restarted.killHard() }
        try await restarted.waitUntilReady()

        let audit = try await restarted.request("GET", "/v1/audit?limit=1000", secret: admin, as: AuditListBody.self)
        let entries = try #require(audit.body?.entries)
        let revokedEntries = Set(entries.filter { $0.action == "credential.revoke" }.map(\.target))
        #expect(entries.filter { $0.action == "credential.revoke" }.count == revokedEntries.count, "one entry per revocation")
        let cutOff = entries.filter { $0.action == "vendor.cut_off" && $0.target == vendorID }
        let listed = try #require(try await restarted.request("GET", "/v1/credentials", secret: admin, as: CredentialListBody.self).body?.credentials)
        let states = Dictionary(uniqueKeysWithValues: listed.map { ($0.id, $0.state) })
        var revokedOther: Set<String> = []
        var firstShopStates: [String] = []
        for (index, id) in devices.enumerated() {
            if index % 2 == 1, states[id] == "revoked" { revokedOther.insert(id) }
            if index % 2 == 0 { firstShopStates.append(states[id] ?? "?") }
        }
        #expect(revokedOther == revokedEntries, "\(kind): revoked without an entry, or an entry without its revocation")
        // The cut-off is one act: every device of the shop revoked with its entry, or none and no entry.
        #expect(cutOff.count <= 1)
        if cutOff.isEmpty {
            #expect(firstShopStates.allSatisfy { $0 == "active" }, "\(kind): a shop half cut off, with no entry: \(firstShopStates)")
        } else {
            #expect(firstShopStates.allSatisfy { $0 == "revoked" }, "\(kind): cut off, but devices still active: \(firstShopStates)")
        }
        print("\(kind): killed with \(revokedEntries.count) of 30 revocations and \(cutOff.count) cut-off done, each with its audit entry")
    }
}
