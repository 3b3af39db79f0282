import Foundation
import PeezAPI
import TestSupport
import Testing

/// `peez serve`'s Wallet settings, as an operator meets them: a part that cannot be used (an expired pass
/// certificate, half the settings, a certificate for another team, a key others can read, an unreadable Google
/// key) is left out with one sentence naming the setting, said at start, in `/health` and by the Wallet routes'
/// 503, and the card service starts and serves everything else.
@Suite("peez serve with Wallet settings that cannot be used")
struct WalletServeTests {
    static let demoMember = "00000000-0000-4000-8000-000000000001"
    static let backend = "peez_backend_DEVELOPMENT_ONLY_not_a_secret"
    static let vendor = "peez_vendor_DEVELOPMENT_ONLY_not_a_secret"

    /// A development service with `environment`, started and ready.
    static func serve(_ environment: [String: String], folder: TemporaryFolder) async throws -> ServiceProcess {
        // Pushes (with the pass certificate) would go to a closed loopback port, never off this machine.
        let service = try ServiceProcess(
            arguments: ["--development", "--database", folder.file("ledger-\(UUID().uuidString).sqlite")],
            port: TestPorts.unused(),
            environment: ["PEEZ_APNS_URL": "https://127.0.0.1:9"].merging(environment) { $1 }
        )
        try await service.waitUntilReady()
        return service
    }

    static func settings(_ chain: WalletCertificates, team: String = WalletCertificates.teamIdentifier) -> [String: String] {
        [
            "PEEZ_WALLET_PASS_TYPE_ID": WalletCertificates.passTypeIdentifier, "PEEZ_WALLET_TEAM_ID": team,
            "PEEZ_WALLET_CERTIFICATE": chain.certificate, "PEEZ_WALLET_KEY": chain.key, "PEEZ_WALLET_WWDR": chain.intermediate,
            "PEEZ_WALLET_WEB_SERVICE_URL": "https://cards.peez.dz/wallet",
        ]
    }

    /// `/health`'s answer, as its type.
    static func health(_ service: ServiceProcess) async throws -> HealthBody? {
        try await service.request("GET", "/health", as: HealthBody.self).body
    }

    @Test func anExpiredPassCertificateAndAnUnreadableGoogleKeyLeaveWalletOutAndTheCardServiceServes() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let chain = try WalletCertificates(in: folder, passCertificateEnded: true)
        var environment = Self.settings(chain)
        environment["PEEZ_GOOGLE_WALLET_ISSUER_ID"] = "3388000000012345678"
        environment["PEEZ_GOOGLE_WALLET_SERVICE_ACCOUNT"] = folder.file("no-such-key.json")
        let service = try await Self.serve(environment, folder: folder)
        defer { service.killHard() }

        let health = try await Self.health(service)
        #expect(health?.status == "degraded")
        #expect(health?.parts["apple_wallet"]?.status == "unavailable")
        #expect(
            health?.parts["apple_wallet"]?.reason?.contains("PEEZ_WALLET_CERTIFICATE is valid only from") == true,
            "\(String(describing: health))"
        )
        #expect(health?.parts["apple_wallet"]?.reason?.contains("renew it") == true)
        #expect(health?.parts["google_wallet"]?.status == "unavailable")
        #expect(health?.parts["google_wallet"]?.reason?.contains("no-such-key.json") == true, "\(String(describing: health))")
        #expect(service.errorOutput.contains("warning: Apple Wallet is unavailable, the card service starts without it"))
        let metrics = String(
            decoding: try await service.request("GET", "/metrics", secret: "peez_admin_DEVELOPMENT_ONLY_not_a_secret").data,
            as: UTF8.self
        )
        #expect(metrics.contains(#"peez_part_up{part="apple_wallet"} 0"#), "\(metrics.prefix(2_000))")
        #expect(metrics.contains(#"peez_certificate_expiry_seconds{certificate="Apple pass certificate"} 1735689600"#))

        // Wallet says why, with its own status; cards and sales go on.
        let pass = try await service.request("GET", "/v1/members/\(Self.demoMember)/pass.pkpass", secret: Self.backend)
        #expect(pass.status == 503)
        #expect((pass.body["error"] as? [String: Any])?["code"] as? String == "wallet_unavailable")
        let google = try await service.request("GET", "/v1/members/\(Self.demoMember)/google-wallet", secret: Self.backend)
        #expect(google.status == 503)
        let card = try await service.request("GET", "/v1/members/\(Self.demoMember)/card", secret: Self.backend)
        #expect(card.status == 200, "the card service serves: \(card.body)")
        let sale = try await service.request(
            "POST",
            "/v1/activations",
            secret: Self.vendor,
            json: ["membership_id": "PEEZ-20251103-00001", "months": 1, "amount_dzd": 300],
            headers: ["Idempotency-Key": UUID().uuidString]
        )
        #expect(sale.status == 201, "sales go on: \(sale.body)")
    }

    @Test func eachWalletMistakeIsOneSentenceNamingTheSettingAndStopsNothing() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let chain = try WalletCertificates(in: folder)
        var cases: [(String, [String: String], String)] = [
            ("another team", Self.settings(chain, team: "OTHERTEAM1"), "belongs to team PEEZTEAM42 (its OU), not PEEZ_WALLET_TEAM_ID OTHERTEAM1")
        ]
        var half = Self.settings(chain)
        (half["PEEZ_WALLET_KEY"], half["PEEZ_WALLET_WWDR"]) = (nil, nil)
        cases.append(("half the settings", half, "missing: PEEZ_WALLET_KEY, PEEZ_WALLET_WWDR"))
        var plain = Self.settings(chain)
        plain["PEEZ_WALLET_WEB_SERVICE_URL"] = "http://cards.peez.dz/wallet"
        cases.append(("plain http", plain, "must be an https URL"))
        for (name, environment, sentence) in cases {
            let service = try await Self.serve(environment, folder: folder)
            let reason = try await Self.health(service)?.parts["apple_wallet"]?.reason ?? ""
            #expect(reason.contains(sentence), "\(name): \(reason)")
            #expect(!reason.contains("\n"), "\(name): one sentence")
            #expect(try await service.request("GET", "/health").status == 200, "\(name): the service serves")
            _ = await service.stop(within: 30)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: chain.key)
        let exposed = try await Self.serve(Self.settings(chain), folder: folder)
        #expect(try await Self.health(exposed)?.parts["apple_wallet"]?.reason?.contains("chmod 600") == true)
        _ = await exposed.stop(within: 30)
    }
}
