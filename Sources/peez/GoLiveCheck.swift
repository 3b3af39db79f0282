import CardCrypto
import CardServer
import CardServices
import CardToken
import Chargily
import Foundation
import Membership
import MembershipSQL

/// What an operator checks before opening to the public, and again any day: the settings the service runs with
/// (read as `peez serve` reads them), the signing and published keys, no development material, the database
/// reachable and migrated, the public URL, TLS or a trusted proxy, every certificate's end, Wallet and the
/// reminders, the last backup's age. Each a ``GoLiveFinding``: ok, warn or fail, with the fix.
/// `peez check` prints them; `peez serve` gives them to the console.
struct GoLiveCheck: Sendable {
    /// What the settings alone say (the keys, the addresses, or why the settings cannot be used); read once.
    private let settingsFindings: [GoLiveFinding]
    /// The parts that can fail on their own and their certificates, as the service keeps them current.
    private let parts: ServiceParts?
    private let storeName: String
    private let reminderSink: String?
    private let backupFolder: String?

    /// A backup younger than this is current; one older than ``staleBackup`` fails.
    static let currentBackup: Int64 = 26 * 3_600
    static let staleBackup: Int64 = 7 * 86_400

    /// The check of `configuration`: the settings as `peez serve` would run with them, or why they cannot be.
    init(_ configuration: Result<ServeConfiguration, any Error>) {
        switch configuration {
        case .success(let settings):
            settingsFindings =
                [GoLiveFinding("settings", .ok, "peez serve starts with them (\(ConfigurationFile.path ?? "no configuration file"))")]
                + Self.keyFindings(settings) + Self.addressFindings(settings) + Self.paymentFindings(settings)
            parts = settings.parts
            storeName = settings.storeName
            reminderSink = settings.remindSink ?? settings.reminders?.sink
            backupFolder = settings.backupFolder
        case .failure(let error):
            settingsFindings = [
                GoLiveFinding(
                    "settings",
                    .fail,
                    "peez serve would not start: \(error)",
                    fix: "correct the setting named (peez serve --print-config shows each with where it came from)"
                )
            ]
            (parts, storeName, reminderSink, backupFolder) = (nil, "the database", nil, nil)
        }
    }

    /// Every finding at `now`; the ledger's when `ledger` is given (else the database is reported unreachable
    /// with `unreachable`'s reason).
    func findings(ledger: SQLMembershipStore?, unreachable: String? = nil, now: Int64) async -> [GoLiveFinding] {
        guard let parts else { return settingsFindings }
        var found = settingsFindings
        found += await ledgerFindings(ledger, unreachable: unreachable, now: now)
        found += parts.expiries.map { expiry in
            let (level, line) = expiry.standing(at: now)
            return GoLiveFinding(expiry.name, level, line, fix: level == .ok ? nil : "renew it: Docs/going-live-wallet.md, Renewing before the end")
        }
        found += partFindings(parts)
        found.append(backupFinding(now: now))
        return found
    }

    private static func keyFindings(_ settings: ServeConfiguration) -> [GoLiveFinding] {
        let ring = settings.keyRing
        if settings.development {
            return [
                GoLiveFinding(
                    "development mode",
                    .fail,
                    "--development: the development key (its private half is public), demo data and demo secrets",
                    fix: "start without --development, with a key of your own (peez keys rotate)"
                )
            ]
        }
        let retired = ring.publishedKeys.dropFirst().map(\.keyID.hex)
        return [
            GoLiveFinding("signing key", .ok, "kid \(ring.signingKey.keyID.hex), not the development key"),
            GoLiveFinding(
                "published keys",
                .ok,
                retired.isEmpty
                    ? "the signing key only; no development key"
                    : "the signing key and \(retired.count) retired (\(retired.joined(separator: ", "))); no development key"
            ),
        ]
    }

    private func ledgerFindings(_ ledger: SQLMembershipStore?, unreachable: String?, now: Int64) async -> [GoLiveFinding] {
        guard let ledger else {
            return [
                GoLiveFinding(
                    "database",
                    .fail,
                    "cannot be used: \(unreachable ?? "not opened")",
                    fix: "start the database, or correct PEEZ_DATABASE / PEEZ_DATABASE_URL"
                )
            ]
        }
        var found: [GoLiveFinding] = []
        do {
            let pending = try await ledger.pendingMigrations()
            found.append(
                pending.isEmpty
                    ? GoLiveFinding("database", .ok, "\(storeName) answers; every migration applied")
                    : GoLiveFinding(
                        "database",
                        .warn,
                        "\(storeName) answers; \(pending.count) migration(s) not applied yet (\(pending.prefix(3).joined(separator: ", ")))",
                        fix: "start (or restart) peez serve on it: it migrates before it serves"
                    )
            )
            var active: [String] = []
            for (name, secret) in [
                ("admin", DevelopmentSecrets.admin), ("backend", DevelopmentSecrets.backend), ("vendor", DevelopmentSecrets.vendor),
            ] {
                let hash = APISecret.hash(secret, sha256: SHA256.hash)
                if let credential = try await ledger.credential(secretHash: hash), credential.refusal(now: now) == nil {
                    active.append("\(name) (credential \(credential.id.lowercasedText))")
                }
            }
            let demoShop = try await ledger.vendor(id: DevelopmentData.vendorID) != nil
            if !active.isEmpty {
                found.append(
                    GoLiveFinding(
                        "development material",
                        .fail,
                        "the ledger holds the published development secrets, active: \(active.joined(separator: ", ")); this service refuses them outside --development, but a development start would take them",
                        fix: "revoke each: peez admin revoke <credential id>"
                    )
                )
            } else if demoShop {
                found.append(
                    GoLiveFinding(
                        "development material",
                        .warn,
                        "the demo shop \"Boucherie Centrale\" (\(DevelopmentData.vendorID.lowercasedText)) is in the ledger: it was started with --development once",
                        fix:
                            "use a ledger that never ran in development, or cut the demo shop off: peez admin cut-off --vendor \(DevelopmentData.vendorID.lowercasedText)"
                    )
                )
            } else {
                found.append(GoLiveFinding("development material", .ok, "none: no development key, secret or demo shop"))
            }
        } catch {
            found.append(GoLiveFinding("database", .fail, "answers, but cannot be read: \(error)", fix: "check the database's log"))
        }
        return found
    }

    /// Online payments: off, unusable, in Chargily's test mode (no real money), or live, and where Chargily's
    /// webhooks go.
    private static func paymentFindings(_ settings: ServeConfiguration) -> [GoLiveFinding] {
        if let state = settings.parts.parts[.payments], state.status == .unavailable {
            return [
                GoLiveFinding(
                    "online payments",
                    .fail,
                    "unavailable: \(state.reason ?? "")",
                    fix: "correct the PEEZ_CHARGILY_… setting named (README: Going live with Chargily)"
                )
            ]
        }
        guard let chargily = settings.chargily?.configuration else {
            return [GoLiveFinding("online payments", .ok, "not configured: members pay at the shops only")]
        }
        var found: [GoLiveFinding] = []
        if chargily.mode == .test && !settings.development {
            found.append(
                GoLiveFinding(
                    "online payments",
                    .warn,
                    "Chargily's test mode: checkouts take no real money, and a paid test checkout sells real months",
                    fix: "once tested, put the live key in the file and set PEEZ_CHARGILY_MODE=live (README: Going live with Chargily)"
                )
            )
        } else {
            found.append(GoLiveFinding("online payments", .ok, "Chargily in \(chargily.mode.rawValue) mode at \(chargily.apiURL)"))
        }
        if let webhook = chargily.webhookURL {
            found.append(GoLiveFinding("Chargily webhook", .ok, "checkouts name \(webhook)"))
        } else {
            found.append(
                GoLiveFinding(
                    "Chargily webhook",
                    .warn,
                    "no webhook URL: a paid checkout is sold only when the service reads it back (PEEZ_PAYMENT_CHECK_AFTER), unless Chargily's dashboard names one",
                    fix: "set PEEZ_PUBLIC_URL (or PEEZ_CHARGILY_WEBHOOK_URL) to the https address Chargily reaches"
                )
            )
        }
        return found
    }

    private static func addressFindings(_ settings: ServeConfiguration) -> [GoLiveFinding] {
        let server = settings.server
        let loopback = ["127.0.0.1", "::1", "localhost"].contains(server.host) || server.host.hasPrefix("127.")
        var found: [GoLiveFinding] = []
        if let url = server.publicURL, let parsed = URL(string: url), let host = parsed.host {
            let local = host == "localhost" || host.hasPrefix("127.") || host == "::1"
            if parsed.scheme != "https" {
                found.append(
                    GoLiveFinding(
                        "public URL",
                        .fail,
                        "\(url) is not https: counters send their secret only over https",
                        fix: "set PEEZ_PUBLIC_URL to the https address"
                    )
                )
            } else if local {
                found.append(
                    GoLiveFinding(
                        "public URL",
                        .fail,
                        "\(url) is a loopback address phones cannot reach",
                        fix: "set PEEZ_PUBLIC_URL to the address phones reach"
                    )
                )
            } else {
                found.append(GoLiveFinding("public URL", .ok, "\(url): enrolment and console links start with it"))
            }
        } else {
            found.append(
                GoLiveFinding(
                    "public URL",
                    .fail,
                    "PEEZ_PUBLIC_URL is not set: links would name \(server.baseURL), where the service listens",
                    fix: "set PEEZ_PUBLIC_URL=https://… (the address phones reach) in \(ConfigurationFile.path ?? ConfigurationFile.installed)"
                )
            )
        }
        if server.tls != nil {
            found.append(
                GoLiveFinding("TLS", .ok, "served by the service itself (PEEZ_TLS_CERTIFICATE); a renewed certificate is taken within a minute")
            )
        } else if !server.trustedProxies.isEmpty {
            found.append(
                GoLiveFinding(
                    "TLS",
                    loopback ? .ok : .warn,
                    "terminated by the trusted proxy \(server.trustedProxies); the service listens on \(server.host)",
                    fix: loopback ? nil : "keep PEEZ_HOST=127.0.0.1 behind a proxy on the same machine, so nothing reaches the service around it"
                )
            )
        } else if loopback {
            found.append(
                GoLiveFinding(
                    "TLS",
                    .warn,
                    "no TLS here and no trusted proxy: behind a proxy, every client looks like the proxy",
                    fix: "name the reverse proxy in PEEZ_TRUSTED_PROXIES (README: Deploying, the nginx configuration)"
                )
            )
        } else {
            found.append(
                GoLiveFinding(
                    "TLS",
                    .fail,
                    "plain http on \(server.host): secrets and members' data would cross the network unencrypted",
                    fix: "put the nginx configuration of the README in front (PEEZ_HOST=127.0.0.1), or set PEEZ_TLS_CERTIFICATE and PEEZ_TLS_KEY"
                )
            )
        }
        return found
    }

    private func partFindings(_ parts: ServiceParts) -> [GoLiveFinding] {
        var found: [GoLiveFinding] = []
        let states = parts.parts
        for (part, name, unset) in [
            (ServiceParts.Part.appleWallet, "Apple Wallet", "not configured: the app offers no Apple Wallet pass (Docs/going-live-wallet.md)"),
            (.applePush, "Apple Wallet pushes", "not configured"),
            (.googleWallet, "Google Wallet", "not configured: the app offers no Google Wallet pass (Docs/going-live-wallet.md)"),
        ] {
            guard let state = states[part] else {
                if part != .applePush { found.append(GoLiveFinding(name, .ok, unset)) }
                continue
            }
            found.append(
                state.status == .ok
                    ? GoLiveFinding(name, .ok, "configured and usable")
                    : GoLiveFinding(
                        name,
                        .fail,
                        "unavailable: \(state.reason ?? "")",
                        fix: "correct the setting named; the card service serves without it meanwhile"
                    )
            )
        }
        if let state = states[.reminders], state.status == .unavailable {
            found.append(
                GoLiveFinding("reminders", .fail, "unavailable: \(state.reason ?? "")", fix: "correct PEEZ_REMIND_SINK or PEEZ_WEBHOOK_SECRETS")
            )
        } else if let reminderSink {
            found.append(GoLiveFinding("reminders", .ok, "sent to \(SettingsReader.shown(reminderSink, secret: false))"))
        } else {
            found.append(
                GoLiveFinding(
                    "reminders",
                    .warn,
                    "PEEZ_REMIND_SINK is not set: members are not told before their membership ends",
                    fix: "set PEEZ_REMIND_SINK and PEEZ_WEBHOOK_SECRETS, then systemctl enable --now peez-remind.timer (README: Renewal reminders)"
                )
            )
        }
        return found
    }

    private func backupFinding(now: Int64) -> GoLiveFinding {
        guard let backupFolder else {
            return GoLiveFinding(
                "backups",
                .warn,
                "PEEZ_BACKUP_DIR is not set: this check cannot see when the ledger was last backed up",
                fix: "name the folder backups land in (peez backup writes there when given no file; pg_dump files for PostgreSQL)"
            )
        }
        let newest = Self.newestFile(in: backupFolder)
        guard let newest else {
            return GoLiveFinding("backups", .fail, "no backup in \(backupFolder)", fix: "run peez backup (or pg_dump) now, and daily from a timer")
        }
        let age = now - newest.modified
        let hours = age / 3_600
        if age <= Self.currentBackup { return GoLiveFinding("backups", .ok, "the newest, \(newest.name), is \(hours) h old") }
        return GoLiveFinding(
            "backups",
            age <= Self.staleBackup ? .warn : .fail,
            "the newest, \(newest.name), is \(hours / 24) days old",
            fix: "run peez backup (or pg_dump) daily from a timer"
        )
    }

    /// The most recently changed regular file directly in `folder`.
    static func newestFile(in folder: String) -> (name: String, modified: Int64)? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return nil }
        var newest: (name: String, modified: Int64)?
        for name in names where !name.hasPrefix(".") {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: (folder as NSString).appendingPathComponent(name)),
                attributes[.type] as? FileAttributeType == .typeRegular, let date = attributes[.modificationDate] as? Date
            else { continue }
            let modified = Int64(date.timeIntervalSince1970)
            if newest == nil || modified > newest!.modified { newest = (name, modified) }
        }
        return newest
    }
}
