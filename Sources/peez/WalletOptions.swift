import ArgumentParser
import CardCrypto
import CardServices
import Foundation
import WalletPass
import WalletPush

/// Apple Wallet's settings of `peez serve`: all six (as options or the environment variables of the same
/// meaning) or none. Checked at start: each file readable, the key 0600, the certificate's UID and OU the pass
/// type and team given, the WWDR its issuer, the URL https.
struct WalletOptions: ParsableArguments {
    @Option(help: "Apple Wallet: the pass type id, e.g. pass.dz.peez.card (or PEEZ_WALLET_PASS_TYPE_ID).")
    var walletPassTypeId: String?

    @Option(help: "Apple Wallet: the Apple team id (or PEEZ_WALLET_TEAM_ID).")
    var walletTeamId: String?

    @Option(help: "Apple Wallet: the Pass Type ID certificate, PEM (or PEEZ_WALLET_CERTIFICATE).")
    var walletCertificate: String?

    @Option(help: "Apple Wallet: the certificate's private key, PEM, mode 0600 (or PEEZ_WALLET_KEY).")
    var walletKey: String?

    @Option(help: "Apple Wallet: Apple's WWDR intermediate certificate that issued it, PEM (or PEEZ_WALLET_WWDR).")
    var walletWwdr: String?

    @Option(
        help: "Apple Wallet: the https URL Wallet calls for updates; its path is where the web service is served (or PEEZ_WALLET_WEB_SERVICE_URL)."
    )
    var walletWebServiceUrl: String?

    @Option(
        help:
            "APNs: the auth key from Apple (.p8, mode 0600) pass updates are pushed with (or PEEZ_APNS_KEY); without it, with the pass type certificate."
    )
    var apnsKey: String?

    @Option(help: "APNs: the provider key's id (or PEEZ_APNS_KEY_ID).")
    var apnsKeyId: String?

    @Option(help: "APNs: the push service's URL (or PEEZ_APNS_URL; default https://api.push.apple.com).")
    var apnsUrl: String?

    @Option(help: "APNs: a CA certificate (PEM) to trust besides the system's, for a test push service (or PEEZ_APNS_CA).")
    var apnsCa: String?

    @Option(help: "Google Wallet: the issuer id from the Google Pay & Wallet console (or PEEZ_GOOGLE_WALLET_ISSUER_ID).")
    var googleWalletIssuerId: String?

    @Option(help: "Google Wallet: the service account's key file (JSON, mode 0600) (or PEEZ_GOOGLE_WALLET_SERVICE_ACCOUNT).")
    var googleWalletServiceAccount: String?

    @Option(help: "Google Wallet: the web origins the save button may appear on, comma-separated (or PEEZ_GOOGLE_WALLET_ORIGINS).")
    var googleWalletOrigins: String?

    @Option(help: "Google Wallet: the Wallet API's URL (or PEEZ_GOOGLE_WALLET_API_URL; default https://walletobjects.googleapis.com).")
    var googleWalletApiUrl: String?

    /// Apple Wallet, its pushes and Google Wallet as configured, each on its own: a part whose settings cannot be
    /// used (an expired or unreadable certificate, a missing setting, a refused key) is recorded in `parts` as
    /// unavailable with the reason, said on standard error, and left out; the card service starts without it.
    /// The certificates each part holds are recorded with their end dates.
    func loadEach(
        _ settings: SettingsReader,
        now: Int64,
        parts: ServiceParts
    ) -> (
        wallet: (identity: PassSigningIdentity, webServiceURL: String)?,
        push: (authentication: APNsClient.Authentication, url: String, certificateAuthority: String?)?,
        google: (account: GoogleServiceAccount, issuerID: String, origins: [String], apiURL: String)?
    ) {
        func attempt<T>(_ part: ServiceParts.Part, _ what: String, _ load: () throws -> T?) -> T? {
            do {
                guard let loaded = try load() else { return nil }
                parts.markWorking(part)
                return loaded
            } catch {
                parts.markUnavailable(part, "\(error)")
                printError("warning: \(what) is unavailable, the card service starts without it: \(error)")
                return nil
            }
        }
        let wallet = attempt(.appleWallet, "Apple Wallet") { try load(settings, now: now) }
        // Each certificate's end, read on its own: an expired one is named with its date even when Wallet is out.
        for (name, setting, flag) in [
            ("Apple pass certificate", "PEEZ_WALLET_CERTIFICATE", walletCertificate), ("Apple WWDR intermediate", "PEEZ_WALLET_WWDR", walletWwdr),
        ] {
            guard let path = settings.value(setting, flag: flag), let bytes = try? KeyFiles.readFile(path),
                let certificate = try? X509Certificate(pem: bytes, what: setting)
            else { continue }
            parts.note(.init(name: name, setting: setting, notAfter: certificate.notAfter))
        }
        let walletGiven = wallet != nil || parts.state(.appleWallet) != nil
        let push = attempt(.applePush, "Apple Wallet's pushes (APNs)") { () throws -> (APNsClient.Authentication, String, String?)? in
            if walletGiven && wallet == nil {
                _ = try? loadPush(settings, identity: nil)  // read, so --print-config shows them
                throw ValidationError("Apple Wallet is unavailable, so its passes cannot be pushed")
            }
            return try loadPush(settings, identity: wallet?.identity)
        }
        let google = attempt(.googleWallet, "Google Wallet") { try loadGoogle(settings) }
        return (wallet, push.map { (authentication: $0.0, url: $0.1, certificateAuthority: $0.2) }, google)
    }

    /// Google Wallet's settings: the service account, issuer id, origins and API URL; nil when not configured.
    func loadGoogle(_ settings: SettingsReader) throws -> (account: GoogleServiceAccount, issuerID: String, origins: [String], apiURL: String)? {
        let issuer = settings.value("PEEZ_GOOGLE_WALLET_ISSUER_ID", flag: googleWalletIssuerId)
        let keyPath = settings.value("PEEZ_GOOGLE_WALLET_SERVICE_ACCOUNT", flag: googleWalletServiceAccount)
        let apiURL = settings.value("PEEZ_GOOGLE_WALLET_API_URL", flag: googleWalletApiUrl, builtIn: "https://walletobjects.googleapis.com")!
        let originList = settings.value("PEEZ_GOOGLE_WALLET_ORIGINS", flag: googleWalletOrigins) ?? ""
        guard issuer != nil || keyPath != nil else { return nil }
        guard let issuer, let keyPath else {
            throw ValidationError("Google Wallet needs both PEEZ_GOOGLE_WALLET_ISSUER_ID and PEEZ_GOOGLE_WALLET_SERVICE_ACCOUNT (or neither)")
        }
        guard !issuer.isEmpty, issuer.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw settings.invalid("PEEZ_GOOGLE_WALLET_ISSUER_ID", "must be the issuer's number from the Google Pay & Wallet console")
        }
        guard let scheme = URL(string: apiURL)?.scheme, scheme == "https" || apiURL.hasPrefix("http://127.0.0.1") else {
            throw settings.invalid("PEEZ_GOOGLE_WALLET_API_URL", "must be an https URL")
        }
        try KeyFiles.requireOwnerOnly(keyPath, what: "Google service account key")
        let origins = originList.split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        do {
            return (try GoogleServiceAccount(json: try KeyFiles.readFile(keyPath)), issuer, origins.filter { !$0.isEmpty }, apiURL)
        } catch let error as WalletError {
            throw ValidationError(error.reason)
        }
    }

    /// The push settings, when Wallet is configured: with the APNs auth key when given (token authentication),
    /// else with the pass type certificate itself (TLS client authentication, as Apple's Wallet guide allows);
    /// the service's URL and an extra CA. A key without Wallet, or half the key's settings, is refused.
    func loadPush(
        _ settings: SettingsReader,
        identity: PassSigningIdentity?
    ) throws
        -> (authentication: APNsClient.Authentication, url: String, certificateAuthority: String?)?
    {
        let keyPath = settings.value("PEEZ_APNS_KEY", flag: apnsKey)
        let keyID = settings.value("PEEZ_APNS_KEY_ID", flag: apnsKeyId)
        let url = settings.value("PEEZ_APNS_URL", flag: apnsUrl, builtIn: "https://api.push.apple.com")!
        let certificateAuthority = settings.value("PEEZ_APNS_CA", flag: apnsCa)
        guard keyPath == nil || keyID != nil, keyID == nil || keyPath != nil else {
            throw ValidationError("APNs needs both PEEZ_APNS_KEY and PEEZ_APNS_KEY_ID (or neither, to push with the pass type certificate)")
        }
        guard let identity else {
            guard keyPath == nil else {
                throw ValidationError("PEEZ_APNS_KEY pushes Wallet pass updates: configure Apple Wallet (the six PEEZ_WALLET_… settings) too")
            }
            return nil
        }
        guard URL(string: url)?.scheme == "https" else {
            throw settings.invalid("PEEZ_APNS_URL", "must be an https URL (APNs speaks HTTP/2 over TLS)")
        }
        guard let keyPath, let keyID else {
            let client = identity.tlsClientIdentity()
            return (.certificate(chainPEM: client.certificateChainPEM, keyPEM: client.privateKeyPEM), url, certificateAuthority)
        }
        try KeyFiles.requireOwnerOnly(keyPath, what: "APNs key")
        do {
            let key = try APNsAuthenticationKey(pem: try KeyFiles.readFile(keyPath), keyID: keyID, teamID: identity.teamIdentifier)
            return (.token(key), url, certificateAuthority)
        } catch let error as WalletError {
            throw ValidationError(error.reason)
        }
    }

    /// The checked identity and web service URL, or nil when Wallet is not configured at all.
    func load(_ settings: SettingsReader, now: Int64) throws -> (identity: PassSigningIdentity, webServiceURL: String)? {
        let values = [
            ("PEEZ_WALLET_PASS_TYPE_ID", walletPassTypeId), ("PEEZ_WALLET_TEAM_ID", walletTeamId), ("PEEZ_WALLET_CERTIFICATE", walletCertificate),
            ("PEEZ_WALLET_KEY", walletKey), ("PEEZ_WALLET_WWDR", walletWwdr), ("PEEZ_WALLET_WEB_SERVICE_URL", walletWebServiceUrl),
        ].map { name, option in (name, settings.value(name, flag: option)) }
        let given = values.filter { $0.1 != nil }
        guard !given.isEmpty else { return nil }
        let missing = values.filter { $0.1 == nil }.map(\.0)
        guard missing.isEmpty else {
            throw ValidationError(
                "Apple Wallet needs all six settings; missing: \(missing.joined(separator: ", ")) (or give none to serve without Wallet)"
            )
        }
        let setting = Dictionary(uniqueKeysWithValues: values.map { ($0.0, $0.1!) })
        let url = setting["PEEZ_WALLET_WEB_SERVICE_URL"]!
        guard let parsed = URL(string: url), let host = parsed.host, parsed.query == nil,
            parsed.scheme == "https" || (parsed.scheme == "http" && ["127.0.0.1", "localhost", "::1"].contains(host))
        else {
            throw settings.invalid(
                "PEEZ_WALLET_WEB_SERVICE_URL",
                "must be an https URL without a query (Wallet calls only https; http only on loopback, for tests)"
            )
        }
        try KeyFiles.requireOwnerOnly(setting["PEEZ_WALLET_KEY"]!, what: "Wallet key")
        func read(_ name: String) throws -> [UInt8] {
            do {
                return try KeyFiles.readFile(setting[name]!)
            } catch {
                throw ValidationError("\(name): \(error)")
            }
        }
        do {
            let identity = try PassSigningIdentity(
                certificatePEM: try read("PEEZ_WALLET_CERTIFICATE"),
                keyPEM: try read("PEEZ_WALLET_KEY"),
                intermediatePEM: try read("PEEZ_WALLET_WWDR"),
                passTypeIdentifier: setting["PEEZ_WALLET_PASS_TYPE_ID"]!,
                teamIdentifier: setting["PEEZ_WALLET_TEAM_ID"]!,
                now: now
            )
            return (identity, url)
        } catch let error as WalletError {
            throw ValidationError(error.reason)
        }
    }
}
