/// An error of the Wallet pass module: a stable ``code`` and a sentence a person can act on.
public struct WalletError: Error, Hashable, CustomStringConvertible, Sendable {
    /// A stable error code: an opaque struct over a private enum, so codes can be added without breaking a caller
    /// that switched over them.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Backing: String, Hashable, Sendable {
            case invalidConfiguration, inconsistentIdentity, signingFailed, invalidArchive
        }
        private let backing: Backing
        private init(_ backing: Backing) { self.backing = backing }
        public var description: String { backing.rawValue }

        /// A configuration file is missing, unreadable, or not what its setting names.
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// The pass type certificate, its key and the WWDR intermediate do not belong together.
        public static let inconsistentIdentity = Code(.inconsistentIdentity)
        /// OpenSSL failed to sign or encode.
        public static let signingFailed = Code(.signingFailed)
        /// A pass archive is not a readable, bounded ZIP of a pass.
        public static let invalidArchive = Code(.invalidArchive)
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
