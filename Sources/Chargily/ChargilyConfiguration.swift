public import Foundation

/// How the service reaches Chargily Pay (v2): the mode, its API's base URL, the secret key (which also signs the
/// webhooks), and where the member is sent and the webhooks are sent after a checkout.
public struct ChargilyConfiguration: Sendable, Hashable {
    /// Chargily's two modes, each with its own base URL and keys.
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        case test, live

        /// The API's published base URL in this mode.
        public var apiURL: String {
            switch self {
            case .test: "https://pay.chargily.net/test/api/v2"
            case .live: "https://pay.chargily.net/api/v2"
            }
        }

        /// How a secret key of this mode begins, as Chargily's dashboard issues them.
        public var secretKeyPrefix: String { "\(rawValue)_sk_" }
    }

    public var mode: Mode
    /// The API's base URL: the mode's, or another (a stand-in, in tests).
    public var apiURL: String
    public var secretKey: String
    /// Where the gateway sends the member after paying, and after failing (nil: the same page).
    public var successURL: String
    public var failureURL: String?
    /// Where the gateway sends its webhooks for our checkouts (nil: the one set in Chargily's dashboard).
    public var webhookURL: String?

    /// Checks every setting, naming the one that is wrong; throws ``ChargilyConfigurationError``.
    public init(
        mode: Mode,
        apiURL: String? = nil,
        secretKey: String,
        successURL: String,
        failureURL: String? = nil,
        webhookURL: String? = nil
    ) throws(ChargilyConfigurationError) {
        let secretKey = secretKey.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !secretKey.isEmpty, secretKey.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw ChargilyConfigurationError("PEEZ_CHARGILY_SECRET_KEY: the secret key file holds no key (one line of visible characters)")
        }
        let otherMode = Mode.allCases.first { $0 != mode }!
        if secretKey.hasPrefix(otherMode.secretKeyPrefix) {
            throw ChargilyConfigurationError(
                "PEEZ_CHARGILY_SECRET_KEY: a \(otherMode.rawValue) key (\(otherMode.secretKeyPrefix)…) for \(mode.rawValue) mode; set PEEZ_CHARGILY_MODE=\(otherMode.rawValue) or use the \(mode.rawValue) key"
            )
        }
        try Self.check("PEEZ_CHARGILY_API_URL", apiURL ?? mode.apiURL, httpsOnly: false)
        try Self.check("PEEZ_CHARGILY_SUCCESS_URL", successURL, httpsOnly: false)
        if let failureURL { try Self.check("PEEZ_CHARGILY_FAILURE_URL", failureURL, httpsOnly: false) }
        if let webhookURL { try Self.check("PEEZ_CHARGILY_WEBHOOK_URL", webhookURL, httpsOnly: mode == .live) }
        self.mode = mode
        self.apiURL = (apiURL ?? mode.apiURL).hasSuffix("/") ? String((apiURL ?? mode.apiURL).dropLast()) : (apiURL ?? mode.apiURL)
        self.secretKey = secretKey
        self.successURL = successURL
        self.failureURL = failureURL
        self.webhookURL = webhookURL
    }

    private static func check(_ setting: String, _ url: String, httpsOnly: Bool) throws(ChargilyConfigurationError) {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), parsed.host?.isEmpty == false,
            scheme == "https" || (!httpsOnly && scheme == "http")
        else {
            throw ChargilyConfigurationError("\(setting): '\(url)' is not an \(httpsOnly ? "https" : "http(s)") URL such as https://peez.dz/paid")
        }
    }
}

/// A Chargily setting that cannot be used, naming it and the fix.
public struct ChargilyConfigurationError: Error, Hashable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
