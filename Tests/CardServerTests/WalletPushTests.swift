import CardServices
import Foundation
import HTTPTypes
import HummingbirdTesting
import MembershipSQL
import PeezAPI
import TestSupport
import Testing
import WalletPass
import WalletPush

/// Pass updates pushed through APNs, against an HTTP/2 server written in the test from Apple's documented
/// provider API (Tests/Tools/apns-server.py), which checks the provider token's ES256 signature and claims.
@Suite("Wallet pass updates pushed through APNs")
struct WalletPushTests {

    @Test func aSaleIsPushedToEveryRegisteredDeviceOverHTTP2DeadTokensAreForgottenAndA429IsRetried() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let apns = try APNsStandIn(folder: folder, topic: WalletCertificates.passTypeIdentifier, teamID: WalletCertificates.teamIdentifier)
        defer { apns.stop() }
        let (wallet, _) = try WalletRoutesTests.wallet(folder)
        try await ServerHarness.withLiveServer(wallet: wallet) { harness, client in
            let uuid = try await client.createMember()
            _ = try await client.activate(token: try await client.cardToken(uuid))
            let pass = try await client.send(.get, "/v1/members/\(uuid)/pass.pkpass", secret: ServerHarness.backendSecret)
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
            let key = try APNsAuthenticationKey(
                pem: Array(try Data(contentsOf: URL(fileURLWithPath: apns.keyPath))),
                keyID: APNsStandIn.keyID,
                teamID: WalletCertificates.teamIdentifier
            )
            let apnsClient = try APNsClient(
                server: apns.url,
                key: key,
                topic: WalletCertificates.passTypeIdentifier,
                certificateAuthority: apns.certificateAuthority,
                clock: { Int64(Date().timeIntervalSince1970) }
            )
            let worker = WalletPushWorker(store: harness.store, push: { await apnsClient.push(deviceToken: $0) }, clock: { harness.now })
            #expect(try await worker.runOnce() == 0, "a pass just issued has nothing to push")

            // A renewal at the counter: one update, pushed to each device.
            harness.advance(by: 60)
            #expect(try await client.activate(token: try await client.cardToken(uuid)).status == .created)
            #expect(try await harness.store.pendingWalletUpdates() == 1)
            #expect(try await worker.runOnce() == 1)
            let first = apns.requests
            #expect(Set(first.compactMap { $0["token"] as? String }) == ["a1b2c3d4", "dead0001", "cafe0001"], "\(first)")
            #expect(
                first.allSatisfy { $0["http_version"] as? String == "2" && $0["topic"] as? String == WalletCertificates.passTypeIdentifier },
                "\(first)"
            )
            #expect(first.first { $0["token"] as? String == "a1b2c3d4" }?["status"] as? Int == 200, "the provider token was accepted: \(first)")
            let member = UUID(uuidString: uuid)!
            #expect(try await harness.store.walletRegistrations(member: member).map(\.device) == ["phone1", "phone3"], "410: forgotten")
            #expect(try await harness.store.pendingWalletUpdates() == 1, "429: still to push")

            // Not before its backoff; then once more, to every device still registered.
            #expect(try await worker.runOnce() == 0)
            harness.advance(by: WalletPushWorker.backoff(attempts: 0))
            #expect(try await worker.runOnce() == 1)
            #expect(try await harness.store.pendingWalletUpdates() == 0)
            let second = Array(apns.requests.dropFirst(first.count))
            #expect(
                Set(second.compactMap { $0["token"] as? String }) == ["a1b2c3d4", "cafe0001"] && second.allSatisfy { $0["status"] as? Int == 200 },
                "\(second)"
            )
            #expect(try await worker.runOnce() == 0, "nothing twice")
            try await apnsClient.shutdown()
        }
    }
}
