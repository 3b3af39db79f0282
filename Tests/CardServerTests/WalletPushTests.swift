import CardServices
import Foundation
import HTTPTypes
import HummingbirdTesting
import Membership
import MembershipSQL
import PeezAPI
import Reminders
import TestSupport
import Testing
import WalletPass
import WalletPush

/// Pass updates pushed through APNs, against an HTTP/2 server written in the test from Apple's documented
/// provider API (Tests/Tools/apns-server.py), which checks the provider token's ES256 signature and claims.
@Suite("Wallet pass updates pushed through APNs")
struct WalletPushTests {
    /// A client of the APNs stand-in, with the provider key it trusts (token authentication).
    static func tokenClient(of apns: APNsStandIn) throws -> APNsClient {
        let key = try APNsAuthenticationKey(
            pem: Array(try Data(contentsOf: URL(fileURLWithPath: apns.keyPath))),
            keyID: APNsStandIn.keyID,
            teamID: WalletCertificates.teamIdentifier
        )
        return try APNsClient(
            server: apns.url,
            key: key,
            topic: WalletCertificates.passTypeIdentifier,
            certificateAuthority: apns.certificateAuthority,
            clock: .system
        )
    }

    @Test func aSaleIsPushedToEveryRegisteredDeviceOverHTTP2DeadTokensAreForgottenAndA429IsRetried() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let apns = try await onOwnThread {
            try APNsStandIn(folder: folder, topic: WalletCertificates.passTypeIdentifier, teamID: WalletCertificates.teamIdentifier)
        }
        defer { apns.stop() }
        let (wallet, _) = try WalletRoutesTests.wallet(folder)
        try await ServerHarness.withLiveServer(wallet: wallet) { harness, client in
            let uuid = try await client.createMember()
            _ = try await client.activate(token: try await client.cardToken(uuid))
            let pass = try await client.send(.get, "/v1/members/\(uuid)/pass.pkpass", secret: ServerHarness.backendSecret)
            // The wire itself: the pass.json Wallet reads from the archive.
            let json = try #require(try JSONSerialization.jsonObject(with: Data(try PassArchive(pass.body).files["pass.json"]!)) as? [String: Any])
            let token = try #require(json["authenticationToken"] as? String)
            for (device, pushToken) in [("phone1", "a1b2c3d4"), ("phone2", "dead0001"), ("phone3", "cafe0001")] {
                let registered = try await client.send(
                    .post,
                    "/wallet/v1/devices/\(device)/registrations/\(WalletCertificates.passTypeIdentifier)/\(uuid)",
                    json: ["pushToken": pushToken],
                    headers: WalletRoutesTests.applePass(token)
                )
                #expect(registered.status == .created)
            }
            let apnsClient = try Self.tokenClient(of: apns)
            let worker = WalletPushWorker(store: harness.store, push: { await apnsClient.push(deviceToken: $0) }, clock: WallClock { harness.now })
            #expect(try await worker.runOnce() == 0, "a pass just issued has nothing to push")

            // A renewal at the counter: one update, pushed to each device.
            harness.advance(by: 60)
            #expect(try await client.activate(token: try await client.cardToken(uuid)).status == .created)
            #expect(try await harness.store.walletOutboxStatus().apple.waiting == 1)
            #expect(try await worker.runOnce() == 1)
            let first = apns.requests
            #expect(Set(first.compactMap { $0["token"] as? String }) == ["a1b2c3d4", "dead0001", "cafe0001"], "\(first)")
            #expect(
                first.allSatisfy { $0["http_version"] as? String == "2" && $0["topic"] as? String == WalletCertificates.passTypeIdentifier },
                "\(first)"
            )
            #expect(
                first.allSatisfy { $0["push_type"] as? String == "background" && $0["priority"] as? String == "5" },
                "a pass update is a background push at priority 5 (watchOS 6 and later require the type): \(first)"
            )
            #expect(first.first { $0["token"] as? String == "a1b2c3d4" }?["status"] as? Int == 200, "the provider token was accepted: \(first)")
            let member = UUID(uuidString: uuid)!
            #expect(try await harness.store.walletRegistrations(member: member).map(\.device) == ["phone1", "phone3"], "410: forgotten")
            #expect(try await harness.store.walletOutboxStatus().apple.waiting == 1, "429: still to push")

            // Not before its backoff; then once more, only to the device that was not told (the others were).
            #expect(try await worker.runOnce() == 0)
            harness.advance(by: WalletPushWorker.backoff(attempts: 0))
            #expect(try await worker.runOnce() == 1)
            #expect(try await harness.store.walletOutboxStatus().apple.waiting == 0)
            let second = Array(apns.requests.dropFirst(first.count))
            #expect(
                second.compactMap { $0["token"] as? String } == ["cafe0001"] && second.allSatisfy { $0["status"] as? Int == 200 },
                "a retry pushes only the device still behind: \(second)"
            )
            #expect(try await worker.runOnce() == 0, "nothing twice")
            try await apnsClient.shutdown()
        }
    }

    @Test func updatesArePushedWithThePassTypeCertificateWhenNoAuthKeyIsGiven() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let chain = try WalletCertificates(in: folder)
        let identity = try WalletRoutesTests.identity(chain)
        // APNs taking certificate-based connections: the handshake asks for a certificate Apple issued.
        let apns = try await onOwnThread {
            try APNsStandIn(
                folder: folder,
                topic: WalletCertificates.passTypeIdentifier,
                teamID: WalletCertificates.teamIdentifier,
                clientCA: chain.root
            )
        }
        defer { apns.stop() }
        let client = identity.tlsClientIdentity()
        let withCertificate = try APNsClient(
            server: apns.url,
            authentication: .certificate(chainPEM: client.certificateChainPEM, keyPEM: client.privateKeyPEM),
            topic: WalletCertificates.passTypeIdentifier,
            certificateAuthority: apns.certificateAuthority,
            clock: .system
        )
        #expect(await withCertificate.push(deviceToken: "a1b2c3d4") == .delivered)
        try await withCertificate.shutdown()
        let pushed = apns.requests
        #expect(pushed.count == 1 && pushed[0]["status"] as? Int == 200 && pushed[0]["push_type"] as? String == "background", "\(pushed)")

        let withoutCertificate = try Self.tokenClient(of: apns)
        if case .delivered = await withoutCertificate.push(deviceToken: "a1b2c3d4") {
            Issue.record("a connection without the certificate got through")
        }
        try await withoutCertificate.shutdown()
    }

    @Test func aPassWhoseDevicesCannotBeReachedHoldsUpNoOtherPass() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let apns = try await onOwnThread {
            try APNsStandIn(folder: folder, topic: WalletCertificates.passTypeIdentifier, teamID: WalletCertificates.teamIdentifier)
        }
        defer { apns.stop() }
        let (wallet, _) = try WalletRoutesTests.wallet(folder)
        try await ServerHarness.withLiveServer(wallet: wallet) { harness, client in
            // The largest pass a member may have, every device stalled at APNs; and two one-device passes.
            func passWithDevices(_ index: Int, _ tokens: [String]) async throws -> String {
                let uuid = try await client.createMember(index)
                let pass = try await client.send(.get, "/v1/members/\(uuid)/pass.pkpass", secret: ServerHarness.backendSecret)
                // The wire itself: the pass.json Wallet reads from the archive.
                let json = try #require(
                    try JSONSerialization.jsonObject(with: Data(try PassArchive(pass.body).files["pass.json"]!)) as? [String: Any]
                )
                let token = try #require(json["authenticationToken"] as? String)
                for (index, pushToken) in tokens.enumerated() {
                    let path = "/wallet/v1/devices/dev\(uuid.prefix(8))\(index)/registrations/\(WalletCertificates.passTypeIdentifier)/\(uuid)"
                    #expect(
                        try await client.send(.post, path, json: ["pushToken": pushToken], headers: WalletRoutesTests.applePass(token)).status
                            == .created
                    )
                }
                return uuid
            }
            let stalled = try await passWithDevices(1, (0..<WalletPassLimits.maxDevices).map { String(format: "51ee%04x", $0) })
            let first = try await passWithDevices(2, ["a1110001"])
            let second = try await passWithDevices(3, ["a2220001"])
            let apnsClient = try Self.tokenClient(of: apns)
            let worker = WalletPushWorker(store: harness.store, push: { await apnsClient.push(deviceToken: $0) }, clock: WallClock { harness.now })
            let signal = WalletPushSignal()
            let drain = Task { await worker.run(signal: signal, ready: { true }) }
            defer { drain.cancel() }

            func pushed(_ token: String, after start: ContinuousClock.Instant) async throws -> Duration {
                while !apns.requests.contains(where: { $0["token"] as? String == token && $0["status"] as? Int == 200 }) {
                    guard ContinuousClock.now - start < .seconds(60) else {
                        Issue.record("\(token) was never pushed")
                        return .seconds(60)
                    }
                    try await Task.sleep(for: .milliseconds(10))
                }
                return ContinuousClock.now - start
            }
            harness.advance(by: 60)
            _ = try await client.send(.patch, "/v1/members/\(stalled)", secret: ServerHarness.backendSecret, json: ["name": "Stalled Member"])
            _ = try await client.send(.patch, "/v1/members/\(first)", secret: ServerHarness.backendSecret, json: ["name": "First Member"])
            var start = ContinuousClock.now
            signal.nudge()
            let firstLatency = try await pushed("a1110001", after: start)
            // While the stalled pass's pushes still hang, a change to another pass goes out at once.
            try await Task.sleep(for: .seconds(1))
            _ = try await client.send(.patch, "/v1/members/\(second)", secret: ServerHarness.backendSecret, json: ["name": "Second Member"])
            start = ContinuousClock.now
            signal.nudge()
            let secondLatency = try await pushed("a2220001", after: start)
            print(
                "a one-device pass pushed \(firstLatency) and \(secondLatency) after its change, while a \(WalletPassLimits.maxDevices)-device pass stalled at APNs"
            )
            #expect(firstLatency < .seconds(5) && secondLatency < .seconds(5), "\(firstLatency) \(secondLatency)")
            drain.cancel()
            _ = await drain.value
            try await apnsClient.shutdown()
        }
    }

    @Test func aReminderReachesAMemberWithAPassThroughThePassOnceAndNoOtherChannelTellsThemAgain() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let apns = try await onOwnThread {
            try APNsStandIn(folder: folder, topic: WalletCertificates.passTypeIdentifier, teamID: WalletCertificates.teamIdentifier)
        }
        defer { apns.stop() }
        let (wallet, _) = try WalletRoutesTests.wallet(folder)
        try await ServerHarness.withLiveServer(wallet: wallet) { harness, client in
            let holder = try await client.createMember()
            let other = try await client.createMember(2)
            for member in [holder, other] { _ = try await client.activate(token: try await client.cardToken(member)) }
            let pass = try await client.send(.get, "/v1/members/\(holder)/pass.pkpass", secret: ServerHarness.backendSecret)
            // The wire itself: the pass.json Wallet reads from the archive.
            let json = try #require(try JSONSerialization.jsonObject(with: Data(try PassArchive(pass.body).files["pass.json"]!)) as? [String: Any])
            let token = try #require(json["authenticationToken"] as? String)
            let registered = try await client.send(
                .post,
                "/wallet/v1/devices/phone1/registrations/\(WalletCertificates.passTypeIdentifier)/\(holder)",
                json: ["pushToken": "a1b2c3d4"],
                headers: WalletRoutesTests.applePass(token)
            )
            #expect(registered.status == .created)

            // 24 days later the month ends within a week: the 7-day reminders are due.
            harness.advance(by: 24 * 86_400)
            let pushChannel = try await harness.store.previewDueReminders(channel: "push", now: harness.now, after: nil, limit: 10).map(
                \.reminder.memberUUID
            )
            #expect(pushChannel == [UUID(uuidString: other)!], "the member with a pass is left out of the other channels")
            let runner = ReminderRunner(
                store: harness.store,
                sink: WalletPassReminderSink(store: harness.store, clock: harness.cards.clock),
                channel: Reminder.walletChannel,
                clock: harness.cards.clock
            )
            let summary = try await runner.run()
            #expect(summary.due == 1 && summary.delivered == 1, "\(summary)")

            let apnsClient = try Self.tokenClient(of: apns)
            let worker = WalletPushWorker(store: harness.store, push: { await apnsClient.push(deviceToken: $0) }, clock: WallClock { harness.now })
            #expect(try await worker.runOnce() == 1)
            #expect(apns.requests.map { $0["token"] as? String } == ["a1b2c3d4"], "\(apns.requests)")

            // The pass Wallet fetches shows how soon the paid time ends, with the reminder as its change message.
            let latest = try await client.send(
                .get,
                "/wallet/v1/passes/\(WalletCertificates.passTypeIdentifier)/\(holder)",
                headers: WalletRoutesTests.applePass(token)
            )
            let files = try PassArchive(latest.body).files
            // The wire itself: the pass.json Wallet reads from the archive.
            let shown = try #require(try JSONSerialization.jsonObject(with: Data(files["pass.json"]!)) as? [String: Any])
            let field = try #require(((shown["storeCard"] as? [String: Any])?["secondaryFields"] as? [[String: Any]])?.first)
            #expect(field["value"] as? String == "ENDS_IN_7_DAYS" && field["changeMessage"] as? String == "REMINDER", "\(field)")
            let french = try #require(String(data: Data(files["fr.lproj/pass.strings"]!), encoding: .utf16))
            #expect(
                french.contains("\"ENDS_IN_7_DAYS\" = \"se termine dans 7 jours\";") && french.contains("\"REMINDER\" = \"Votre adhésion PEEZ %@")
            )

            // Exactly once: another run records and delivers nothing; nothing more to push.
            let again = try await runner.run()
            #expect(again.due == 0 && again.delivered == 0, "\(again)")
            #expect(try await worker.runOnce() == 0)

            // A renewal makes the reminder stale: the pass shows the new end date again.
            #expect(try await client.activate(token: try await client.cardToken(holder)).status == .created)
            let renewed = try await client.send(
                .get,
                "/wallet/v1/passes/\(WalletCertificates.passTypeIdentifier)/\(holder)",
                headers: WalletRoutesTests.applePass(token)
            )
            // The wire itself: the pass.json Wallet reads from the archive.
            let renewedJSON = try #require(
                try JSONSerialization.jsonObject(with: Data(try PassArchive(renewed.body).files["pass.json"]!)) as? [String: Any]
            )
            // The wire itself: the pass.json Wallet reads.
            let renewedField = try #require(((renewedJSON["storeCard"] as? [String: Any])?["secondaryFields"] as? [[String: Any]])?.first)
            #expect(
                renewedField["changeMessage"] as? String == "COVERAGE_CHANGED" && renewedField["dateStyle"] as? String == "PKDateStyleMedium",
                "\(renewedField)"
            )
            try await apnsClient.shutdown()
        }
    }
}
