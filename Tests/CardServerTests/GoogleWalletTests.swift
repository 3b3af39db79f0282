import CardServices
import Foundation
import HTTPTypes
import HummingbirdTesting
import Membership
import MembershipSQL
import PeezAPI
import Synchronization
import TestSupport
import Testing
import WalletPass
import WalletPush

/// Google Wallet: the save link's RS256 JWT, checked by another implementation, and updates through the outbox
/// against a stand-in written from Google's contracts (the OAuth 2.0 JWT-bearer token endpoint, object PATCH and
/// insert, the save link opened).
@Suite("Google Wallet")
struct GoogleWalletTests {
    static let email = GoogleWalletStandIn.email
    static let issuer = GoogleWalletStandIn.issuerID

    /// A service account key made by openssl, its JSON key file pointing at the stand-in's token endpoint.
    static func account(_ folder: TemporaryFolder, port: Int) throws -> GoogleServiceAccount {
        let keyFile = try GoogleWalletStandIn.serviceAccount(in: folder, port: port)
        return try GoogleServiceAccount(json: Array(try Data(contentsOf: URL(fileURLWithPath: keyFile))))
    }

    @Test func theSaveLinkIsAnRS256JWTForGoogleCarryingTheCardAndABoundMemberGetsNone() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let account = try Self.account(folder, port: 9)
        let service: @Sendable (ServerHarness) throws -> GoogleWalletService = {
            GoogleWalletService(cards: $0.cards, store: $0.store, account: account, issuerID: Self.issuer, origins: ["https://peez.dz"])
        }
        try await ServerHarness.withLiveServer(googleWallet: service) { harness, client in
            let uuid = try await client.createMember()
            _ = try await client.activate(token: try await client.cardToken(uuid))
            let reply = try await client.send(.get, "/v1/members/\(uuid)/google-wallet", secret: ServerHarness.backendSecret)
            let link = try reply.decoded(GoogleWalletLinkBody.self).save_url
            #expect(link.hasPrefix("https://pay.google.com/gp/v/save/"), "\(link)")
            let jwt = String(link.dropFirst("https://pay.google.com/gp/v/save/".count))
            let check = """
                import base64, json, sys
                from cryptography.hazmat.primitives import hashes, serialization
                from cryptography.hazmat.primitives.asymmetric import padding
                def b64(text): return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
                head, claims, signature = sys.argv[1].split(".")
                serialization.load_pem_public_key(open(sys.argv[2], "rb").read()).verify(
                    b64(signature), (head + "." + claims).encode(), padding.PKCS1v15(), hashes.SHA256())
                print(json.dumps({"header": json.loads(b64(head)), "claims": json.loads(b64(claims))}))
                """
            let verified = try await ProcessRunner.run(["python3", "-c", check, jwt, folder.file("sa.pub")])
            #expect(verified.status == 0, "\(verified.standardError)")
            // The wire itself: the save link's JWT as an independent JOSE library decoded it, Google's claims as Google reads them.
            let decoded = try #require(try JSONSerialization.jsonObject(with: Data(verified.standardOutput.utf8)) as? [String: Any])
            let claims = try #require(decoded["claims"] as? [String: Any])
            #expect((decoded["header"] as? [String: Any])?["alg"] as? String == "RS256")
            #expect(claims["aud"] as? String == "google" && claims["typ"] as? String == "savetowallet" && claims["iss"] as? String == Self.email)
            #expect(claims["origins"] as? [String] == ["https://peez.dz"])
            let object = try #require(((claims["payload"] as? [String: Any])?["genericObjects"] as? [[String: Any]])?.first)
            // The class the object names travels in the link (Google inserts it with the first save).
            let classes = try #require((claims["payload"] as? [String: Any])?["genericClasses"] as? [[String: Any]])
            #expect(classes.count == 1 && classes[0]["id"] as? String == object["classId"] as? String, "\(classes) \(object["classId"] ?? "")")
            #expect(object["id"] as? String == "\(Self.issuer).\(uuid)" && object["state"] as? String == "ACTIVE")
            #expect((object["barcode"] as? [String: Any])?["value"] as? String == (try await client.cardToken(uuid)))
            #expect((object["header"] as? [String: Any]).flatMap { ($0["defaultValue"] as? [String: Any])?["value"] as? String } == "Ahmed Mohamed")

            let phone = try DeviceBindingTests.Phone()
            let bound = try await client.createMember(2)
            #expect(try await DeviceBindingTests.register(phone, for: bound, client: client).status == .ok)
            #expect(try await client.send(.get, "/v1/members/\(bound)/google-wallet", secret: ServerHarness.backendSecret).status == .conflict)
            #expect(try await client.send(.get, "/v1/members/\(uuid)/google-wallet", secret: ServerHarness.vendorSecret).status == .forbidden)
        }
        try await ServerHarness.withLiveServer { _, client in
            let uuid = try await client.createMember()
            let unconfigured = try await client.send(.get, "/v1/members/\(uuid)/google-wallet", secret: ServerHarness.backendSecret)
            #expect(unconfigured.status == .notImplemented, "the member exists; Google Wallet is not set up: \(unconfigured.text)")
        }
    }

    @Test func aSaleUpdatesTheSavedObjectThroughTheJWTBearerGrantAndAnUnsavedOneIsInsertedSoItsOldLinkShowsTheChange() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let port = TestPorts.unused()
        let account = try Self.account(folder, port: port)
        let log = folder.file("google.log")
        let python = try PythonTool.python(packages: ["hypercorn==0.18.0", "cryptography"], name: "apns-venv")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
            "Tools/google-wallet-server.py"
        ).path
        let service: @Sendable (ServerHarness) throws -> GoogleWalletService = {
            GoogleWalletService(cards: $0.cards, store: $0.store, account: account, issuerID: Self.issuer, origins: [])
        }
        try await ServerHarness.withLiveServer(googleWallet: service) { harness, client in
            let saved = try await client.createMember()
            let unsaved = try await client.createMember(2)
            let arguments = [python, script, String(port), folder.file("sa.pub"), Self.email, "\(Self.issuer).\(saved)", log]
            let output = folder.file("google.out")
            let pid = try await onOwnThread { try BackgroundServer.start(arguments, port: port, output: output) }
            defer { _ = try? ProcessRunner.run(["kill", "-9", "--", "-" + pid]) }
            var links: [String] = []
            for member in [saved, unsaved] {
                let reply = try await client.send(.get, "/v1/members/\(member)/google-wallet", secret: ServerHarness.backendSecret)
                links.append(try reply.decoded(GoogleWalletLinkBody.self).save_url)
            }
            let google = GoogleWalletService(cards: harness.cards, store: harness.store, account: account, issuerID: Self.issuer, origins: [])
            let api = GoogleWalletClient(account: account, apiURL: "http://127.0.0.1:\(port)", clock: .system)
            let worker = GoogleWalletWorker(
                store: harness.store,
                object: { try await google.object(memberUUID: $0) },
                update: { await api.update($0) },
                clock: WallClock { harness.now }
            )
            #expect(try await worker.runOnce() == 0, "a link just issued needs no update")

            harness.advance(by: 60)
            for member in [saved, unsaved] { #expect(try await client.activate(token: try await client.cardToken(member)).status == .created) }
            #expect(try await worker.runOnce() == 2)
            let requests = BackgroundServer.requests(in: log)
            #expect(
                requests.first?["path"] as? String == "/token" && requests.first?["status"] as? Int == 200,
                "one token, by the grant: \(requests)"
            )
            #expect(requests.filter { $0["path"] as? String == "/token" }.count == 1, "the token is kept: \(requests)")
            let sent = requests.filter { ($0["path"] as? String)?.hasPrefix("/walletobjects/") == true }
            #expect(
                Set(sent.map { "\($0["method"] ?? "PATCH") \($0["object"] ?? "") \($0["status"] ?? "")" }) == [
                    "PATCH \(Self.issuer).\(saved) 200", "PATCH \(Self.issuer).\(unsaved) 404",
                    "POST \(Self.issuer).\(unsaved) 200", "POST \(Self.issuer).peez_membership 200",
                ],
                "the saved object patched; the unsaved one, unknown to Google, inserted with its class: \(sent)"
            )
            // The wire itself: the objects the Wallet API stand-in received, as Google's contract reads them.
            for member in [saved, unsaved] {
                let body = try #require(sent.last { $0["object"] as? String == "\(Self.issuer).\(member)" }?["body"] as? [String: Any])
                #expect((body["barcode"] as? [String: Any])?["value"] as? String == (try await client.cardToken(member)), "the renewed card")
            }
            #expect(try await worker.runOnce() == 0, "nothing twice")

            // The member now opens the link issued before the sale: Google keeps the object it holds, the renewed one.
            let jwt = String(links[1].dropFirst("https://pay.google.com/gp/v/save/".count))
            let opened = try await ProcessRunner.run([
                "curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)/gp/v/save/\(jwt)",
            ])
            #expect(opened.standardOutput == "200", "\(opened.standardOutput) \(opened.standardError)")
            let kept = try #require(BackgroundServer.requests(in: log).last { $0["saved"] as? Bool == true }?["state"] as? [String: Any])
            #expect(
                (kept["barcode"] as? [String: Any])?["value"] as? String == (try await client.cardToken(unsaved)),
                "the saved link shows the renewed card: \(kept)"
            )
            try await api.shutdown()
        }
    }

    @Test func aKeyGoogleRefusesIsToldSoAndATokenTakenAgainSaysItWorks() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let port = TestPorts.unused()
        // The stand-in knows the key of the account Google holds; the service signs with another (revoked) one.
        _ = try Self.account(folder, port: port)
        let revokedFolder = try TemporaryFolder(in: folder, "revoked")
        let revoked = try Self.account(revokedFolder, port: port)
        let current = try Self.account(try TemporaryFolder(in: folder, "current"), port: port)
        let python = try PythonTool.python(packages: ["hypercorn==0.18.0", "cryptography"], name: "apns-venv")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
            "Tools/google-wallet-server.py"
        ).path
        let arguments = [python, script, String(port), folder.file("current/sa.pub"), Self.email, "none", folder.file("google.log")]
        let pid = try await onOwnThread { try BackgroundServer.start(arguments, port: port, output: folder.file("google.out")) }
        defer { _ = try? ProcessRunner.run(["kill", "-9", "--", "-" + pid]) }
        let standing = Mutex<[String?]>([])
        let card = GoogleWalletCard(
            issuerID: Self.issuer,
            memberUUID: UUID().uuidString.lowercased(),
            memberName: "Ahmed Mohamed",
            membershipID: "PEEZ-20251103-00001",
            cardToken: "PEEZ1:X",
            coverageEnd: nil,
            active: true
        )
        for account in [revoked, current] {
            let api = GoogleWalletClient(
                account: account,
                apiURL: "http://127.0.0.1:\(port)",
                clock: .system,
                keyStanding: { refusal in standing.withLock { $0.append(refusal) } }
            )
            _ = await api.update(card)
            try await api.shutdown()
        }
        let told = standing.withLock { $0 }
        #expect(told.count == 2 && told[0]?.contains("refused the service account's key (400)") == true && told[1] == nil, "\(told)")
    }
}
