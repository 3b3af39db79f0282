import CardCrypto
import CardToken
import Foundation
import TestSupport
import Testing

/// Outside `--development` the development material (its key, whose private half is in the repository, and its
/// published API secrets) is refused by content, whatever the flags, the folders or the ledger say.
@Suite("Development material in production")
struct DevelopmentMaterialTests {
    static let developmentKey = repositoryRoot.appendingPathComponent("Keys/development/signing-key.pem").path
    static let developmentFolder = repositoryRoot.appendingPathComponent("Keys/public").path

    /// A production signing key of the test's own, 0600, and its kid.
    static func productionKey(_ folder: TemporaryFolder) throws -> (path: String, kid: String) {
        let key = try Ed25519PrivateKey.generate()
        let written = try KeyFiles.writeKeyPair(key, directory: folder.path)
        return (written.privateKeyPath, key.keyID.hex)
    }

    @Test func aProductionStartRefusesTheDevelopmentKeyAsSigningKeyOrAmongThePublishedKeys() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (key, _) = try Self.productionKey(folder)
        let ledger = ["--database", folder.file("ledger.sqlite")]
        let publishing = try await PeezCommand.run(
            ["serve", "--signing-key", key, "--published-keys", Self.developmentFolder, "--print-config"] + ledger
        )
        #expect(publishing.status != 0)
        #expect(
            publishing.standardError.contains("PEEZ_PUBLISHED_KEYS (from the flag) holds the development key 46211e5d86abc761"),
            "\(publishing.standardError)"
        )
        let fromEnvironment = try await ProcessRunner.run(
            ["PEEZ_PUBLISHED_KEYS=\(Self.developmentFolder)", PeezCommand.binary, "serve", "--signing-key", key, "--print-config"] + ledger
        )
        #expect(fromEnvironment.standardError.contains("PEEZ_PUBLISHED_KEYS (from the environment) holds the development key"))
        let signing = try await PeezCommand.run(["serve", "--signing-key", Self.developmentKey, "--print-config"] + ledger)
        #expect(signing.status != 0 && signing.standardError.contains("PEEZ_SIGNING_KEY (from the flag) is the published development key"))
    }

    @Test func aProductionStartPublishesOnlyItsOwnKeysAndTheDevelopmentSecretsOpenNothing() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (key, kid) = try Self.productionKey(folder)
        let ledger = folder.file("ledger.sqlite")
        // The ledger ran in development once: it holds the demo secrets' credentials.
        let development = try ServiceProcess(arguments: ["--development", "--database", ledger], port: TestPorts.unused())
        try await development.waitUntilReady()
        #expect(try await development.request("GET", "/v1/keys", secret: "peez_admin_DEVELOPMENT_ONLY_not_a_secret").status == 200)
        _ = await development.stop(within: 30)
        let admin = try await PeezCommand.run(["admin", "create-token", "--role", "admin", "--database", ledger])
        #expect(admin.status == 0, "\(admin.standardError)")
        let secret = admin.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)

        // Started from the checkout (Keys/public holds the development key) with no --published-keys.
        let service = try ServiceProcess(arguments: ["--signing-key", key, "--database", ledger], port: TestPorts.unused())
        try await service.waitUntilReady()
        let keys = try await service.request("GET", "/v1/keys", secret: secret)
        #expect(keys.status == 200)
        let kids = (keys.body["keys"] as? [[String: Any]])?.compactMap { $0["kid"] as? String }
        #expect(kids == [kid], "only the service's own key is published: \(kids ?? [])")
        for demo in [
            "peez_admin_DEVELOPMENT_ONLY_not_a_secret", "peez_backend_DEVELOPMENT_ONLY_not_a_secret", "peez_vendor_DEVELOPMENT_ONLY_not_a_secret",
        ] {
            #expect(try await service.request("GET", "/v1/keys", secret: demo).status == 401, "\(demo) opens nothing in production")
        }
        _ = await service.stop(within: 30)
    }
}
