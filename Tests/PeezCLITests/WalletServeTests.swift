import Foundation
import TestSupport
import Testing

/// `peez serve`'s Apple Wallet settings, as an operator meets them: all six or none, and a pass type
/// certificate that does not match them stops the start with one sentence naming the setting.
@Suite("peez serve with Apple Wallet settings")
struct WalletServeTests {
    static func serve(_ environment: [String: String], folder: TemporaryFolder) throws -> ProcessResult {
        // Pushes (with the pass certificate) would go to a closed loopback port, never off this machine.
        try ProcessRunner.run(
            (["PEEZ_APNS_URL": "https://127.0.0.1:9"].merging(environment) { $1 }).map { "\($0.key)=\($0.value)" } + [
                PeezCommand.binary, "serve", "--development", "--database", folder.file("ledger.sqlite"), "--port", String(TestPorts.unused()),
                "--start-timeout", "2",
            ],
            timeout: 30
        )
    }

    @Test func halfTheSettingsOrACertificateForAnotherTeamStopTheStartWithOneSentence() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let chain = try WalletCertificates(in: folder)
        let settings = [
            "PEEZ_WALLET_PASS_TYPE_ID": WalletCertificates.passTypeIdentifier, "PEEZ_WALLET_TEAM_ID": "OTHERTEAM1",
            "PEEZ_WALLET_CERTIFICATE": chain.certificate, "PEEZ_WALLET_KEY": chain.key, "PEEZ_WALLET_WWDR": chain.intermediate,
            "PEEZ_WALLET_WEB_SERVICE_URL": "https://cards.peez.dz/wallet",
        ]
        let wrongTeam = try Self.serve(settings, folder: folder)
        #expect(wrongTeam.status != 0)
        #expect(
            wrongTeam.standardError.contains("belongs to team PEEZTEAM42 (its OU), not PEEZ_WALLET_TEAM_ID OTHERTEAM1"),
            "\(wrongTeam.standardError)"
        )
        #expect(wrongTeam.standardError.split(separator: "\n").count <= 2, "one sentence: \(wrongTeam.standardError)")

        var half = settings
        half["PEEZ_WALLET_KEY"] = nil
        half["PEEZ_WALLET_WWDR"] = nil
        let missing = try Self.serve(half, folder: folder)
        #expect(missing.status != 0 && missing.standardError.contains("missing: PEEZ_WALLET_KEY, PEEZ_WALLET_WWDR"), "\(missing.standardError)")

        var plain = settings
        plain["PEEZ_WALLET_TEAM_ID"] = WalletCertificates.teamIdentifier
        plain["PEEZ_WALLET_WEB_SERVICE_URL"] = "http://cards.peez.dz/wallet"
        let insecure = try Self.serve(plain, folder: folder)
        #expect(insecure.status != 0 && insecure.standardError.contains("must be an https URL"), "\(insecure.standardError)")

        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: chain.key)
        var readable = settings
        readable["PEEZ_WALLET_TEAM_ID"] = WalletCertificates.teamIdentifier
        let exposed = try Self.serve(readable, folder: folder)
        #expect(exposed.status != 0 && exposed.standardError.contains("chmod 600"), "\(exposed.standardError)")
    }
}
