public import Foundation
import PeezBasics
import TestSupport

/// The ledger a run's instances share: an SQLite file of the run, or a PostgreSQL server of the run's own that
/// the faults may crash and start again.
public enum SoakStore: String, Sendable, CaseIterable {
    case sqlite, postgres
}

/// What the instances of a run share: their keys, the admin secret, the ledger (and its PostgreSQL server), and
/// the stand-ins of the services they call (Chargily, APNs, Google's Wallet API).
final class Deployment: @unchecked Sendable {
    let peez: String
    let folder: String
    let store: SoakStore
    let postgres: PostgresServer?
    /// Between the instances and PostgreSQL.
    private(set) var databaseProxy: FaultyProxy?
    private(set) var adminSecret = ""
    /// Chargily Pay's stand-in, which the instances ask for checkouts and which sends them its webhooks.
    let chargily: ChargilyStandIn
    /// Apple's push service's stand-in, which the instances push Wallet pass updates to, and the pass signing
    /// chain they sign passes with.
    let apns: APNsStandIn
    let walletCertificates: WalletCertificates
    /// Google's token endpoint and Wallet API's stand-in, which the instances send object updates to, and
    /// where members' phones open their save links.
    let google: GoogleWalletStandIn
    private let standInFolder: TemporaryFolder
    /// libfaketime, through which each instance reads its own clock (see ``ServiceUnderTest/stepClock(by:)``).
    let fakeTime: String

    init(peez: String, folder: String, store: SoakStore) throws {
        self.peez = peez
        self.folder = folder
        self.store = store
        postgres = store == .postgres ? try PostgresServer() : nil
        standInFolder = try TemporaryFolder()
        chargily = try ChargilyStandIn(folder: standInFolder)
        walletCertificates = try WalletCertificates(in: standInFolder)
        apns = try APNsStandIn(folder: standInFolder, topic: WalletCertificates.passTypeIdentifier, teamID: WalletCertificates.teamIdentifier)
        google = try GoogleWalletStandIn(folder: standInFolder)
        try Data((chargily.secretKey + "\n").utf8).write(to: URL(fileURLWithPath: folder + "/chargily.key"))
        chmod(folder + "/chargily.key", 0o600)
        fakeTime = try Self.libfaketime()
    }

    /// Debian's libfaketime (package `libfaketime`), the multithreaded build.
    static func libfaketime() throws -> String {
        let candidates = ["x86_64", "aarch64"].map { "/usr/lib/\($0)-linux-gnu/faketime/libfaketimeMT.so.1" }
        guard let found = candidates.first(where: FileManager.default.fileExists(atPath:)) else {
            throw SoakError("the soak steps each instance's clock through libfaketime: install it (apt-get install faketime)")
        }
        return found
    }

    /// The options that name the ledger, for the command line.
    var ledgerArguments: [String] {
        postgres.map { ["--database-url", $0.url] } ?? ["--database", folder + "/ledger.sqlite"]
    }

    /// The options that name the ledger, for an instance: PostgreSQL through the faulty proxy.
    var instanceLedgerArguments: [String] {
        guard let postgres, let databaseProxy else { return ledgerArguments }
        return ["--database-url", postgres.url.replacingOccurrences(of: ":\(postgres.port)/", with: ":\(databaseProxy.port)/")]
    }

    /// Makes the keys and the ledger with an admin credential (starting the PostgreSQL server first, and the
    /// proxy in front of it drawn from `random`).
    func prepare(random: SplitMix64) async throws {
        if let postgres {
            try postgres.start()
            databaseProxy = try FaultyProxy(name: "database proxy", target: postgres.port, odds: .database, random: random)
        }
        try await run(["keys", "generate", "--out", folder + "/keys"])
        adminSecret = try await run(["admin", "create-token", "--role", "admin"] + ledgerArguments + ["--create-database"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Removes the PostgreSQL server and its proxy, if the run had one.
    func remove() {
        databaseProxy?.stop()
        postgres?.remove()
        chargily.stop()
        apns.stop()
        google.stop()
        standInFolder.remove()
    }

    @discardableResult
    private func run(_ arguments: [String]) async throws -> String {
        let result = try await ProcessRunner.run([peez] + arguments)
        guard result.status == 0 else { throw SoakError("peez \(arguments.prefix(2).joined(separator: " ")) failed: \(result.standardError)") }
        return result.standardOutput
    }
}

/// One `peez serve` process of a run, started, killed with SIGKILL and started again on the same port.
final class ServiceUnderTest: @unchecked Sendable {
    let deployment: Deployment
    let name: String
    let port: Int
    private var process: ChildProcess?
    private var starts = 0

    /// Where the clients' proxy in front of it listens: Chargily's webhooks come that way too.
    var publicPort = 0

    init(_ deployment: Deployment, name: String) {
        self.deployment = deployment
        self.name = name
        port = TestPorts.unused()
        stepClock(by: 0)
    }

    private var readyFile: String { deployment.folder + "/\(name).ready" }
    private var clockFile: String { deployment.folder + "/\(name).clock" }

    /// Steps the instance's wall clock to `offset` seconds from the machine's (libfaketime reads the file again
    /// within a second); its monotonic clock runs on, as after an NTP step.
    func stepClock(by offset: Int) {
        try? Data((offset < 0 ? "\(offset)\n" : "+\(offset)\n").utf8).write(to: URL(fileURLWithPath: clockFile))
    }
    private var logFile: String { deployment.folder + "/\(name)-\(starts).log" }

    /// Starts the service and waits until it says its socket listens. A start that fails (its database's
    /// connection cut by the proxy while it migrates: it exits with one sentence) is tried again, as systemd's
    /// `Restart=on-failure` does, up to 5 times; a start that finds its port still held (a socket of the killed
    /// process the kernel has not let go of yet) waits for it, up to a minute, and the sockets on the port are
    /// written to the run's folder.
    func start() async throws {
        var failures = 0
        let begun = ContinuousClock.now
        while true {
            if try await startOnce() { return }
            if log.contains("already in use"), begun.duration(to: .now) < .seconds(60) {
                let sockets = try? await ProcessRunner.run(["ss", "-tanpo", "sport = :\(port) or dport = :\(port)"])
                record("\(Date()) \(name) port \(port) held:\n\(sockets?.standardOutput ?? "ss not run")\n", in: "ports-held.txt")
                try await Task.sleep(for: .seconds(1))
                continue
            }
            failures += 1
            guard failures < 5 else { throw SoakError("\(name) did not start in 5 attempts; the last said: \(log)") }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    /// Appends `text` to the run's file `name`.
    private func record(_ text: String, in name: String) {
        let path = deployment.folder + "/" + name
        if !FileManager.default.fileExists(atPath: path) { FileManager.default.createFile(atPath: path, contents: nil) }
        guard let handle = FileHandle(forWritingAtPath: path) else { return }
        defer { try? handle.close() }
        handle.seekToEndOfFile()
        handle.write(Data(text.utf8))
    }

    /// Starts the service once: true when it says its socket listens, false when it exits first.
    private func startOnce() async throws -> Bool {
        try? FileManager.default.removeItem(atPath: readyFile)
        starts += 1
        let (folder, wallet) = (deployment.folder, deployment.walletCertificates)
        // Through env(1), which replaces itself with peez (same process): a Swift program started straight under
        // libfaketime's LD_PRELOAD sees no command-line arguments (libfaketime 0.9.10), one exec'd from a process
        // already under it does.
        let process = try ChildProcess(
            "/usr/bin/env",
            [deployment.peez, "serve", "--host", "127.0.0.1", "--port", String(port), "--ready-file", readyFile] + deployment.instanceLedgerArguments
                + [
                    "--signing-key", folder + "/keys/signing-key.pem", "--published-keys", folder + "/published",
                ],
            environment: ProcessInfo.processInfo.environment.merging(
                [
                    "LD_PRELOAD": deployment.fakeTime, "FAKETIME_TIMESTAMP_FILE": clockFile, "FAKETIME_CACHE_DURATION": "1",
                    "DONT_FAKE_MONOTONIC": "1",
                    "PEEZ_CHARGILY_SECRET_KEY": folder + "/chargily.key", "PEEZ_CHARGILY_API_URL": deployment.chargily.apiURL,
                    "PEEZ_CHARGILY_SUCCESS_URL": "https://peez.dz/paid",
                    "PEEZ_CHARGILY_WEBHOOK_URL": "http://127.0.0.1:\(publicPort)/v1/payments/chargily/webhook",
                    "PEEZ_PAYMENT_CHECK_AFTER": "1",
                    "PEEZ_WALLET_PASS_TYPE_ID": WalletCertificates.passTypeIdentifier, "PEEZ_WALLET_TEAM_ID": WalletCertificates.teamIdentifier,
                    "PEEZ_WALLET_CERTIFICATE": wallet.certificate, "PEEZ_WALLET_KEY": wallet.key, "PEEZ_WALLET_WWDR": wallet.intermediate,
                    "PEEZ_WALLET_WEB_SERVICE_URL": "http://127.0.0.1:\(publicPort)/wallet", "PEEZ_APNS_KEY": deployment.apns.keyPath,
                    "PEEZ_APNS_KEY_ID": APNsStandIn.keyID, "PEEZ_APNS_URL": deployment.apns.url, "PEEZ_APNS_CA": deployment.apns.certificateAuthority,
                    "PEEZ_GOOGLE_WALLET_ISSUER_ID": GoogleWalletStandIn.issuerID, "PEEZ_GOOGLE_WALLET_SERVICE_ACCOUNT": deployment.google.keyFile,
                    "PEEZ_GOOGLE_WALLET_API_URL": deployment.google.apiURL,
                    // A crash's backtrace, written where the run keeps its logs (by default it goes to standard output).
                    "SWIFT_BACKTRACE": "enable=yes,interactive=no,symbolicate=fast,threads=crashed,output-to=\(logFile).crash",
                ],
                uniquingKeysWith: { $1 }
            ),
            standardError: .file(logFile)
        )
        self.process = process
        let begun = ContinuousClock.now
        while !FileManager.default.fileExists(atPath: readyFile) {
            guard process.isRunning else {
                self.process = nil
                return false
            }
            guard begun.duration(to: .now) < .seconds(120) else { throw SoakError("\(name) was not ready within 120 s: \(log)") }
            try await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    /// Kills the service with SIGKILL: no shutdown code runs.
    func kill() async {
        guard let process else { return }
        process.kill9()
        _ = await process.exited()
        self.process = nil
    }

    /// Stops the service with SIGTERM, as systemd does.
    func stop() async {
        guard let process else { return }
        process.terminate()
        _ = await process.exited()
        self.process = nil
    }

    /// The end of what the last start wrote to standard error.
    var log: String {
        String((try? String(contentsOfFile: logFile, encoding: .utf8))?.suffix(2_000) ?? "")
    }
}

/// A run that could not be carried out (not a violation: the service could not even be started).
public struct SoakError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
