import ArgumentParser
import CardCrypto
import Foundation
import WalletPass

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

    /// The checked identity and web service URL, or nil when Wallet is not configured at all.
    func load(environment: [String: String], now: Int64) throws -> (identity: PassSigningIdentity, webServiceURL: String)? {
        let values = [
            ("PEEZ_WALLET_PASS_TYPE_ID", walletPassTypeId), ("PEEZ_WALLET_TEAM_ID", walletTeamId), ("PEEZ_WALLET_CERTIFICATE", walletCertificate),
            ("PEEZ_WALLET_KEY", walletKey), ("PEEZ_WALLET_WWDR", walletWwdr), ("PEEZ_WALLET_WEB_SERVICE_URL", walletWebServiceUrl),
        ].map { name, option in (name, option ?? environment[name].flatMap { $0.isEmpty ? nil : $0 }) }
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
            throw ValidationError(
                "PEEZ_WALLET_WEB_SERVICE_URL must be an https URL without a query (Wallet calls only https; http only on loopback, for tests): \(url)"
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
