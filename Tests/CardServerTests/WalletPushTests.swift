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
    /// A running APNs stand-in, its CA, the key it trusts and its request log.
    struct APNsServer {
        let pid: String
        let url: String
        let certificateAuthority: String
        let key: APNsAuthenticationKey
        let log: String

        init(folder: TemporaryFolder) throws {
            let python = try PythonTool.python(packages: ["hypercorn==0.18.0", "cryptography"], name: "apns-venv")
            let tls = try TestCertificates(in: folder)
            let keyMade = try ProcessRunner.run([
                "bash", "-c",
                "cd '\(folder.path)' && openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out apns.p8 && openssl pkey -in apns.p8 -pubout -out apns.pub",
            ])
            guard keyMade.status == 0 else { throw ServiceFailure(keyMade.standardError) }
            key = try APNsAuthenticationKey(
                pem: Array(try Data(contentsOf: URL(fileURLWithPath: folder.file("apns.p8")))),
                keyID: "APNSKEY123",
                teamID: WalletCertificates.teamIdentifier
            )
            let port = TestPorts.unused()
            log = folder.file("apns.log")
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
                "Tools/apns-server.py"
            ).path
            let arguments = [
                python, script, String(port), tls.serverChain, tls.serverKey, folder.file("apns.pub"), "APNSKEY123",
                WalletCertificates.teamIdentifier,
                WalletCertificates.passTypeIdentifier, log,
            ]
            // Started through Python's subprocess, which closes every inherited descriptor: the server holds no
            // pipe of this process's (Foundation would wait for it to close), and runs until killed.
            let launcher = """
                import json, socket, subprocess, sys, time
                arguments, output, port = json.loads(sys.argv[1]), sys.argv[2], int(sys.argv[3])
                server = subprocess.Popen(arguments, stdin=subprocess.DEVNULL, stdout=open(output, "w"), stderr=subprocess.STDOUT,
                                          start_new_session=True, close_fds=True)
                print(server.pid, flush=True)
                for _ in range(100):
                    try:
                        socket.create_connection(("127.0.0.1", port), timeout=1).close()
                        sys.exit(0)
                    except OSError:
                        time.sleep(0.1)
                sys.exit(1)
                """
            let encoded = String(decoding: try JSONSerialization.data(withJSONObject: arguments), as: UTF8.self)
            let started = try ProcessRunner.run(["python3", "-c", launcher, encoded, folder.file("apns.out"), String(port)])
            pid = started.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
            url = "https://localhost:\(port)"
            certificateAuthority = tls.rootCertificate
            guard started.status == 0 else {
                throw ServiceFailure(
                    "the APNs stand-in did not start: \((try? String(contentsOfFile: folder.file("apns.out"), encoding: .utf8)) ?? "")"
                )
            }
        }

        /// The requests it answered, in order.
        var requests: [[String: Any]] {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }

        func stop() {
            _ = try? ProcessRunner.run(["kill", pid])
        }
    }

    struct ServiceFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test func aSaleIsPushedToEveryRegisteredDeviceOverHTTP2DeadTokensAreForgottenAndA429IsRetried() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let apns = try APNsServer(folder: folder)
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
            let apnsClient = try APNsClient(
                server: apns.url,
                key: apns.key,
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
