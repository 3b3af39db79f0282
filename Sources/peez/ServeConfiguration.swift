import ArgumentParser
import CardCrypto
import CardServer
import CardServices
import CardToken
import CardWire
import Foundation
import WalletPass
import WalletPush

/// Everything `peez serve` runs with, made from its options and the environment and checked once, before
/// anything opens: the signing key and the key set it publishes, TLS, where and how the server listens, and
/// the daily reminders. A wrong key, a key outside its window or half a TLS pair is one clear error here.
struct ServeConfiguration {
    var development: Bool
    var keyRing: KeyRing
    var server: ServerConfiguration
    var startTimeout: Duration
    var drainTimeout: Duration
    /// The daily reminder run's Algiers time and sink (nil: the sink from PEEZ_REMIND_SINK), if any.
    var reminders: (at: String, sink: String?)?
    /// How the start-up line names the store.
    var storeName: String
    /// Apple Wallet's signing identity and web service URL, when configured.
    var wallet: (identity: PassSigningIdentity, webServiceURL: String)?
    /// APNs, when pass updates are pushed.
    var push: (authentication: APNsClient.Authentication, url: String, certificateAuthority: String?)?
    /// Google Wallet, when configured.
    var google: (account: GoogleServiceAccount, issuerID: String, origins: [String], apiURL: String)?

    init(_ options: Peez.Serve, environment: [String: String], now: Int64) throws {
        development = options.development
        let keyPath = options.signingKey ?? environment["PEEZ_SIGNING_KEY"] ?? (development ? DevelopmentData.signingKeyPath : nil)
        guard let keyPath else {
            throw ValidationError("give --signing-key (or PEEZ_SIGNING_KEY), or run with --development to use the development key")
        }
        let key = try KeyFiles.loadPrivateKey(path: keyPath)
        if key.keyID.hex == DevelopmentData.keyID && !development {
            throw ValidationError(
                "\(keyPath) is the published development key; real cards must be signed with a key of your own (peez keys generate)"
            )
        }
        let folder = PublishedKeyFolder(path: options.publishedKeys)
        keyRing = KeyRing(signingKey: key, publishedKeys: try folder.keys(), windows: try folder.windows())
        if let refusal = keyRing.signingRefusal(now: now) {
            throw ValidationError("\(refusal) (see \(folder.windowsPath)); start with the current key")
        }
        var tls: ServerTLS?
        switch (options.tlsCertificate ?? environment["PEEZ_TLS_CERTIFICATE"], options.tlsKey ?? environment["PEEZ_TLS_KEY"]) {
        case (nil, nil): break
        case (let certificate?, let key?): tls = try ServerTLS(certificateChainPath: certificate, privateKeyPath: key)
        default: throw ValidationError("--tls-certificate and --tls-key go together: give both for https, or neither")
        }
        server = ServerConfiguration(host: options.host, port: options.port, limits: options.connections.limits, tls: tls)
        if let url = options.publicUrl ?? environment["PEEZ_PUBLIC_URL"] {
            guard let parsed = URL(string: url), ["https", "http"].contains(parsed.scheme ?? ""), parsed.host != nil, parsed.query == nil else {
                throw ValidationError("--public-url must be an address like https://cards.peez.dz, not '\(url.prefix(80))'")
            }
            server.publicURL = url
        }
        startTimeout = .seconds(options.startTimeout)
        drainTimeout = .seconds(options.drainTimeout)
        reminders = options.remindAt.map { ($0, options.remindSink) }
        storeName = options.store.effectiveDatabaseURL == nil ? options.store.sqlitePath : "PostgreSQL"
        wallet = try options.wallet.load(environment: environment, now: now)
        push = try options.wallet.loadPush(environment: environment, identity: wallet?.identity)
        google = try options.wallet.loadGoogle(environment: environment)
    }
}
