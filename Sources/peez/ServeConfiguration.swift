import ArgumentParser
import CardCrypto
import CardServer
import CardServices
import CardToken
import CardWire
import Chargily
import Foundation
import WalletPass
import WalletPush

/// Everything `peez serve` runs with, read once through one ``SettingsReader`` (a flag, then the environment,
/// then `--config`'s file, then the default) and checked before anything opens: the signing key and the key set it
/// publishes, the database, TLS, where and how the server listens, the daily reminders and the Wallets. A wrong
/// key, a key outside its window or half a TLS pair is one clear error here; `--print-config` prints it all.
struct ServeConfiguration {
    var development: Bool
    var keyRing: KeyRing
    var server: ServerConfiguration
    /// The database: a PostgreSQL URL, or the SQLite file.
    var databaseURL: String?
    var sqlitePath: String
    var startTimeout: Duration
    var drainTimeout: Duration
    /// The daily reminder run's Algiers time, sink and webhook secrets, if any.
    var reminders: (at: String, sink: String?, webhookSecrets: String?)?
    /// Where reminders go (the service's daily run, or the reminder unit's), if set.
    var remindSink: String?
    /// The folder backups land in, for the go-live check's backup age.
    var backupFolder: String?
    /// How the start-up line names the store.
    var storeName: String
    /// Apple Wallet's signing identity and web service URL, when configured.
    var wallet: (identity: PassSigningIdentity, webServiceURL: String)?
    /// APNs, when pass updates are pushed.
    var push: (authentication: APNsClient.Authentication, url: String, certificateAuthority: String?)?
    /// Google Wallet, when configured.
    var google: (account: GoogleServiceAccount, issuerID: String, origins: [String], apiURL: String)?
    /// Chargily Pay, when online payments are configured and their settings can be used, and how long after its
    /// creation an unpaid checkout is first read back.
    var chargily: (configuration: ChargilyConfiguration, checkAfter: Int64)?
    /// The parts that can fail on their own (Wallet, pushes, reminders, TLS), as configured, and the end dates of
    /// their certificates: a part that cannot be used is recorded here and left out, never a reason not to start.
    let parts = ServiceParts()

    init(_ options: Peez.Serve, settings: SettingsReader, now: Int64) throws {
        development = options.development
        let keyPath = settings.value("PEEZ_SIGNING_KEY", flag: options.signingKey, builtIn: development ? DevelopmentData.signingKeyPath : nil)
        guard let keyPath else {
            throw ValidationError("give --signing-key (or PEEZ_SIGNING_KEY), or run with --development to use the development key")
        }
        let key = try KeyFiles.loadPrivateKey(path: keyPath)
        // Outside development nothing is published by default: Keys/public in a checkout holds the development
        // key, and a production start must not find it by accident.
        let folderPath = settings.value("PEEZ_PUBLISHED_KEYS", flag: options.publishedKeys, builtIn: development ? "Keys/public" : nil)
        let folder = folderPath.map(PublishedKeyFolder.init(path:))
        do {
            keyRing = try KeyRing(
                signingKey: key,
                publishedKeys: try folder?.keys() ?? [],
                windows: try folder?.windows() ?? [:],
                development: development
            )
        } catch KeyRingError.signsWithDevelopmentKey {
            throw settings.invalid(
                "PEEZ_SIGNING_KEY",
                "is the published development key \(DevelopmentKey.keyID), refused outside --development: real cards are signed with a key of your own (peez keys rotate --out /var/lib/peez/keys --published /var/lib/peez/public)"
            )
        } catch KeyRingError.publishesDevelopmentKey {
            throw settings.invalid(
                "PEEZ_PUBLISHED_KEYS",
                "holds the development key \(DevelopmentKey.keyID) (\(folderPath ?? "")/*.pem), refused outside --development: counters would trust cards anyone can sign. Name the folder peez keys rotate --published wrote (e.g. /var/lib/peez/public), or remove that key file from it"
            )
        }
        if let refusal = keyRing.signingRefusal(now: now) {
            throw ValidationError("\(refusal) (see \(folder?.windowsPath ?? "PEEZ_PUBLISHED_KEYS")); start with the current key")
        }
        databaseURL = settings.value("PEEZ_DATABASE_URL", flag: options.store.databaseURL)
        sqlitePath = settings.value("PEEZ_DATABASE", flag: options.store.database, builtIn: StoreOptions.developmentLedger)!
        storeName = databaseURL == nil ? sqlitePath : "PostgreSQL"
        let host = settings.value("PEEZ_HOST", flag: options.host, builtIn: "127.0.0.1")!
        let port = try Self.number(settings, "PEEZ_PORT", flag: options.port, builtIn: 8080, in: 1...65_535)
        var tls: ServerTLS?
        switch (settings.value("PEEZ_TLS_CERTIFICATE", flag: options.tlsCertificate), settings.value("PEEZ_TLS_KEY", flag: options.tlsKey)) {
        case (nil, nil): break
        case (let certificate?, let key?): tls = try ServerTLS(certificateChainPath: certificate, privateKeyPath: key)
        default: throw ValidationError("--tls-certificate and --tls-key go together: give both for https, or neither")
        }
        server = ServerConfiguration(host: host, port: port, limits: options.connections.limits, tls: tls)
        if let url = settings.value("PEEZ_PUBLIC_URL", flag: options.publicUrl) {
            guard let parsed = URL(string: url), ["https", "http"].contains(parsed.scheme ?? ""), parsed.host != nil, parsed.query == nil else {
                throw settings.invalid("PEEZ_PUBLIC_URL", "must be an address like https://cards.peez.dz")
            }
            server.publicURL = url
        }
        if let proxies = settings.value("PEEZ_TRUSTED_PROXIES", flag: options.trustedProxies) {
            do {
                server.trustedProxies = try TrustedProxies(parsing: proxies)
            } catch {
                throw settings.invalid(
                    "PEEZ_TRUSTED_PROXIES",
                    "must be IP addresses or CIDR ranges separated by commas, as 127.0.0.1,::1,10.0.0.0/8 (\(error))"
                )
            }
        }
        startTimeout = .seconds(try Self.number(settings, "PEEZ_START_TIMEOUT", flag: options.startTimeout, builtIn: 15, in: 1...600))
        drainTimeout = .seconds(try Self.number(settings, "PEEZ_DRAIN_TIMEOUT", flag: options.drainTimeout, builtIn: 10, in: 1...600))
        let remindAt = settings.value("PEEZ_REMIND_AT", flag: options.remindAt)
        let sink = settings.value("PEEZ_REMIND_SINK", flag: options.remindSink)
        remindSink = sink
        backupFolder = settings.value("PEEZ_BACKUP_DIR", flag: nil)
        let secrets = settings.value("PEEZ_WEBHOOK_SECRETS", flag: nil, secret: true)
        reminders = remindAt.map { ($0, sink, secrets) }
        (wallet, push, google) = options.wallet.loadEach(settings, now: now, parts: parts)
        if let tls { parts.record(tls: tls, now: now) }
        do {
            chargily = try options.chargily.load(settings, publicURL: server.publicURL)
            if chargily != nil { parts.markWorking(.payments) }
        } catch {
            parts.markUnavailable(.payments, "\(error)")
            printError("warning: online payments are unavailable, the card service starts without them: \(error)")
        }
    }

    /// The settings `peez serve` would run with, read for another command (`peez check`, `peez wallet status`)
    /// through the same reader and the same configuration file, or why it would not start.
    static func asServeWouldRun(store: StoreOptions, now: Int64) -> Result<ServeConfiguration, any Error> {
        Result {
            ConfigurationFile.use(store.config)
            var options = try Peez.Serve.parse([])
            options.store = store
            return try ServeConfiguration(options, settings: try SettingsReader.forCommand(), now: now)
        }
    }

    /// A whole-number setting within `range`.
    static func number(_ settings: SettingsReader, _ name: String, flag: Int?, builtIn: Int, in range: ClosedRange<Int>) throws -> Int {
        let text = settings.value(name, flag: flag.map(String.init), builtIn: String(builtIn))!
        guard let value = Int(text), range.contains(value) else {
            throw settings.invalid(name, "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
}
