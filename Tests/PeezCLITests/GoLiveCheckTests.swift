import CardCrypto
import CardServices
import Foundation
import TestSupport
import Testing

/// `peez check`, the go-live check: ok / warn / fail with the fix, an exit status for scripts, the same in the
/// console's "Going live" panel.
@Suite("Go-live check")
struct GoLiveCheckTests {
    /// A production configuration of the test's own: its key, a migrated SQLite ledger with an admin, an https
    /// public URL behind a trusted proxy, reminders to a file, a fresh backup.
    static func production(_ folder: TemporaryFolder, extra: [String] = []) async throws -> (file: String, admin: String) {
        let key = try KeyFiles.writeKeyPair(try Ed25519PrivateKey.generate(), directory: folder.path).privateKeyPath
        let backups = folder.file("backups")
        try FileManager.default.createDirectory(atPath: backups, withIntermediateDirectories: true)
        let file = folder.file("peez.env")
        try
            ([
                "PEEZ_SIGNING_KEY=\(key)", "PEEZ_DATABASE=\(folder.file("ledger.sqlite"))", "PEEZ_PUBLIC_URL=https://cards.peez.example",
                "PEEZ_TRUSTED_PROXIES=127.0.0.1", "PEEZ_REMIND_SINK=jsonl:\(folder.file("reminders.jsonl"))", "PEEZ_BACKUP_DIR=\(backups)",
            ]).joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let admin = try await PeezCommand.run(["admin", "create-token", "--config", file, "--create-database"])
        #expect(admin.status == 0, "\(admin.standardError)")
        let backup = try await PeezCommand.run(["backup", "--config", file])
        #expect(backup.status == 0, "\(backup.standardError)")
        // Later lines win, as in any such file: what a test changes comes last.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(extra.map { "\n" + $0 }.joined().utf8))
        try handle.close()
        return (file, admin.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func aServiceReadyToGoLivePassesEveryCheck() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (file, _) = try await Self.production(folder)
        let check = try await PeezCommand.run(["check", "--config", file])
        #expect(check.status == 0, "\(check.standardOutput)\(check.standardError)")
        let lines = check.standardOutput.split(separator: "\n")
        for name in ["settings", "signing key", "published keys", "database", "development material", "public URL", "TLS", "reminders", "backups"] {
            #expect(lines.contains { $0.hasPrefix("ok    \(name):") }, "\(name): \(check.standardOutput)")
        }
        #expect(check.standardOutput.contains("0 fail"))
    }

    @Test func eachProblemFailsWithItsFixAndTheExitStatusSaysSo() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let chain = try WalletCertificates(in: folder, passCertificateEnded: true)
        let (file, _) = try await Self.production(
            folder,
            extra: [
                "PEEZ_PUBLIC_URL=http://127.0.0.1:8080", "PEEZ_BACKUP_DIR=\(folder.file("no-backups"))",
                "PEEZ_WALLET_PASS_TYPE_ID=\(WalletCertificates.passTypeIdentifier)", "PEEZ_WALLET_TEAM_ID=\(WalletCertificates.teamIdentifier)",
                "PEEZ_WALLET_CERTIFICATE=\(chain.certificate)", "PEEZ_WALLET_KEY=\(chain.key)", "PEEZ_WALLET_WWDR=\(chain.intermediate)",
                "PEEZ_WALLET_WEB_SERVICE_URL=https://cards.peez.example/wallet",
            ]
        )
        // The ledger once ran in development: the demo secrets' credentials are in it.
        let development = try ServiceProcess(arguments: ["--development", "--database", folder.file("ledger.sqlite")], port: TestPorts.unused())
        try await development.waitUntilReady()
        _ = await development.stop(within: 30)

        let check = try await PeezCommand.run(["check", "--config", file])
        #expect(check.status == 1, "\(check.standardOutput)\(check.standardError)")
        let text = check.standardOutput
        #expect(text.contains("fail  public URL: http://127.0.0.1:8080 is not https"), "\(text)")
        #expect(text.contains("fail  development material: the ledger holds the published development secrets, active"))
        #expect(text.contains("fix: revoke each: peez admin revoke"))
        #expect(text.contains("fail  Apple Wallet: unavailable"))
        #expect(text.contains("fail  Apple pass certificate: Apple pass certificate (PEEZ_WALLET_CERTIFICATE) ended on 2025-01-01"), "\(text)")
        #expect(text.contains("fail  backups: no backup in"))
        #expect(text.contains("not ready"))

        let json = try await PeezCommand.run(["check", "--config", file, "--json"])
        let report = try JSONDecoder().decode(GoLiveReport.self, from: Data(json.standardOutput.utf8))
        #expect(report.level == .fail && report.findings.contains { $0.check == "public URL" && $0.level == .fail && $0.fix != nil })
    }

    @Test func onlinePaymentsInTestModeWarnAndAnInsecureKeyFails() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let key = folder.file("chargily.key")
        try "test_sk_0123456789".write(toFile: key, atomically: true, encoding: .utf8)
        chmod(key, 0o600)
        let chargily = ["PEEZ_CHARGILY_SECRET_KEY=\(key)", "PEEZ_CHARGILY_SUCCESS_URL=https://peez.example/paid"]
        let (file, _) = try await Self.production(folder, extra: chargily)
        let test = try await PeezCommand.run(["check", "--config", file])
        #expect(test.status == 0, "a warning is no failure: \(test.standardOutput)")
        #expect(test.standardOutput.contains("warn  online payments: Chargily's test mode"), "\(test.standardOutput)")
        #expect(test.standardOutput.contains("ok    Chargily webhook: checkouts name https://cards.peez.example/v1/payments/chargily/webhook"))
        // A key the group may read leaves payments out, with the fix.
        chmod(key, 0o640)
        let readable = try await PeezCommand.run(["check", "--config", file])
        #expect(readable.status == 1)
        #expect(readable.standardOutput.contains("fail  online payments: unavailable: the Chargily secret key"), "\(readable.standardOutput)")
        #expect(readable.standardOutput.contains("chmod 600"))
        // A live key in test mode is refused, naming the setting.
        try "live_sk_0123456789".write(toFile: key, atomically: true, encoding: .utf8)
        chmod(key, 0o600)
        let other = try await PeezCommand.run(["check", "--config", file])
        #expect(other.standardOutput.contains("PEEZ_CHARGILY_SECRET_KEY: a live key (live_sk_…) for test mode"), "\(other.standardOutput)")
        #expect(!other.standardOutput.contains("0123456789") && !other.standardError.contains("0123456789"), "the key is never shown")
    }

    @Test func aSettingThatStopsTheServiceIsOneFailAndAnUnreachableDatabaseAnother() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (file, _) = try await Self.production(folder)
        let developmentKey = repositoryRoot.appendingPathComponent("Keys/development/signing-key.pem").path
        let badKey = try await ProcessRunner.run(["PEEZ_SIGNING_KEY=\(developmentKey)", PeezCommand.binary, "check", "--config", file])
        #expect(badKey.status == 1)
        #expect(badKey.standardOutput.contains("fail  settings: peez serve would not start: PEEZ_SIGNING_KEY"), "\(badKey.standardOutput)")
        let unreachable = try await PeezCommand.run([
            "check", "--config", file, "--database-url", "postgres://peez@127.0.0.1:\(TestPorts.unused())/peez",
        ])
        #expect(unreachable.status == 1)
        #expect(unreachable.standardOutput.contains("fail  database: cannot be used"), "\(unreachable.standardOutput)")
    }

    @Test func theConsoleShowsTheSameCheck() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (file, admin) = try await Self.production(folder)
        let service = try ServiceProcess(arguments: ["--config", file], port: TestPorts.unused())
        defer { service.killHard() }
        try await service.waitUntilReady()
        let cookie = try await service.consoleCookie(adminSecret: admin)
        let answer = try await service.request("GET", "/console/api/checks", headers: ["Cookie": cookie])
        #expect(answer.status == 200, "\(answer.body)")
        let report = try JSONDecoder().decode(GoLiveReport.self, from: answer.data)
        #expect(report.findings.contains { $0.check == "public URL" && $0.level == .ok })
        #expect(report.findings.contains { $0.check == "database" && $0.level == .ok })
    }
}
