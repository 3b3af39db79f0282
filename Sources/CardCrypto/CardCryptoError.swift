/// An error thrown by the ``CardCrypto`` module: a stable ``code`` and a reason a person can act on.
public struct CardCryptoError: Error, Hashable, CustomStringConvertible, Sendable {
    /// The kind of error.
    public let code: Code
    /// What went wrong and, where possible, how to fix it.
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }

    public static func == (lhs: CardCryptoError, rhs: CardCryptoError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// A stable error code: an opaque struct over a private enum, so cases can be added later.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Backing: String, Hashable, Sendable {
            case invalidKey, unsupportedKeyType, encryptedKey, insecureKeyFile, fileNotReadable, fileExists
            case fileNotWritable, noKeysFound, privateKeyInKeySet, openSSLFailure
        }
        private let backing: Backing
        private init(_ backing: Backing) { self.backing = backing }
        public var description: String { backing.rawValue }

        /// The bytes are not a PEM key OpenSSL can read.
        public static let invalidKey = Code(.invalidKey)
        /// The key is not Ed25519.
        public static let unsupportedKeyType = Code(.unsupportedKeyType)
        /// The private key is password-protected; the service needs an unencrypted PKCS#8 key.
        public static let encryptedKey = Code(.encryptedKey)
        /// A private key file that group or others can read.
        public static let insecureKeyFile = Code(.insecureKeyFile)
        /// A file or folder that does not exist or cannot be read.
        public static let fileNotReadable = Code(.fileNotReadable)
        /// Refused to overwrite an existing key file.
        public static let fileExists = Code(.fileExists)
        /// A key file could not be written.
        public static let fileNotWritable = Code(.fileNotWritable)
        /// A key set with no key in it.
        public static let noKeysFound = Code(.noKeysFound)
        /// A private key where only public keys belong.
        public static let privateKeyInKeySet = Code(.privateKeyInKeySet)
        /// OpenSSL reported an internal failure.
        public static let openSSLFailure = Code(.openSSLFailure)
    }
}
