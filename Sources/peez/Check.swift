import ArgumentParser
import CardServices
import Foundation

extension Peez {
    /// `peez check`: the go-live check.
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check the service is safe to open to the public: keys, database, addresses, TLS, certificates, Wallet, reminders, backups.",
            discussion: """
                Reads the settings exactly as peez serve does (flags, the environment, the configuration file: \
                /etc/peez/peez.env when it exists) and prints one line a check, ok, warn or fail, each not ok \
                with its fix: the signing key and the published keys (never the development key), no development \
                material in the ledger, the database reachable and migrated (nothing is migrated by this \
                command), the public URL, TLS or a trusted reverse proxy, the end date of every certificate \
                (warned 30 days ahead), Apple Wallet, its pushes, Google Wallet and the reminders, and the age of \
                the newest file in PEEZ_BACKUP_DIR. The console's "Going live" panel shows the same.

                Run it before opening to the public, and any day after (a timer or a monitoring script).

                Examples:
                  sudo -u peez peez check
                  peez check --config /etc/peez/peez.env --strict

                Exit status: 0 when nothing failed (warnings allowed; with --strict, none either), 1 when a check \
                failed, 2 for a usage error.
                """
        )

        @OptionGroup var store: StoreOptions

        @Flag(help: "A warning fails the check too (exit status 1).")
        var strict = false

        @Flag(help: "Print the findings as JSON (the console's shape) instead of lines.")
        var json = false

        func run() async throws {
            let now = CardDates.now()
            let configuration = ServeConfiguration.asServeWouldRun(store: store, now: now)
            let check = GoLiveCheck(configuration)
            var findings: [GoLiveFinding]
            if case .success(let settings) = configuration {
                var ledger = store
                (ledger.database, ledger.databaseURL) = (settings.sqlitePath, settings.databaseURL)
                do {
                    findings = try await ledger.withStore(migrating: false) { store in await check.findings(ledger: store, now: now) }
                } catch {
                    findings = await check.findings(ledger: nil, unreachable: "\(error)", now: now)
                }
            } else {
                findings = await check.findings(ledger: nil, now: now)
            }
            let report = GoLiveReport(findings: findings, checkedAt: now)
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                printNow(String(decoding: try encoder.encode(report), as: UTF8.self))
            } else {
                for finding in findings { printNow(finding.line) }
                let counts = CheckLevel.allLevels.map { level in "\(findings.filter { $0.level == level }.count) \(level.rawValue)" }
                printNow(
                    "\(counts.joined(separator: ", ")): \(report.level == .ok ? "ready" : report.level == .warn ? "ready, with warnings" : "not ready")"
                )
            }
            if report.level == .fail || (strict && report.level == .warn) { throw ExitCode(1) }
        }
    }
}
