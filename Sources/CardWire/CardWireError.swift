/// A wire document (key set, revocation list) that cannot be used: a stable ``code`` and a ``reason`` a person
/// can act on. Tests assert on the code.
public struct CardWireError: Error, Hashable, CustomStringConvertible, Sendable {
    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }

    public static func == (lhs: CardWireError, rhs: CardWireError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// An opaque code over a private enum, so codes can be added without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Backing: String, Hashable, Sendable {
            case notADocument = "not_a_document"
            case invalidKey = "invalid_key"
            case invalidEntry = "invalid_entry"
            case untrustedSignature = "untrusted_signature"
            case developmentKey = "development_key"
        }
        private let backing: Backing
        private init(_ backing: Backing) { self.backing = backing }
        public var description: String { backing.rawValue }

        /// The bytes are not JSON of the document's shape.
        public static let notADocument = Code(.notADocument)
        /// A key entry whose key cannot be read, or whose kid or raw key disagrees with its PEM.
        public static let invalidKey = Code(.invalidKey)
        /// Another entry that breaks the document's rules (a token id that is not 16 hex digits).
        public static let invalidEntry = Code(.invalidEntry)
        /// A signed document not signed by a trusted key, or signed outside that key's window.
        public static let untrustedSignature = Code(.untrustedSignature)
        /// Trust data from a production service that carries the development key (its private half is public).
        public static let developmentKey = Code(.developmentKey)
    }
}
