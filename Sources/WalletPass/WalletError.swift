/// An error of the Wallet pass module: a stable ``code`` and a sentence a person can act on.
public struct WalletError: Error, Hashable, CustomStringConvertible, Sendable {
    public enum Code: String, Sendable, Hashable {
        /// A configuration file is missing, unreadable, or not what its setting names.
        case invalidConfiguration
        /// The pass type certificate, its key and the WWDR intermediate do not belong together.
        case inconsistentIdentity
        /// OpenSSL failed to sign or encode.
        case signingFailed
        /// A pass archive is not a readable, bounded ZIP of a pass.
        case invalidArchive
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }

    public static func == (lhs: WalletError, rhs: WalletError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
