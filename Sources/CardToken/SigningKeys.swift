/// Something that signs card tokens with Ed25519. `CardCrypto` provides one backed by OpenSSL.
public protocol CardSigningKey: Sendable {
    /// The kid written into every token this key signs.
    var keyID: KeyID { get }
    /// The 64-byte Ed25519 signature of `message`.
    func sign(_ message: [UInt8]) throws -> [UInt8]
}

/// A public key a verifier may trust. `CardCrypto` provides one backed by OpenSSL.
public protocol CardVerificationKey: Sendable {
    /// The kid of this key.
    var keyID: KeyID { get }
    /// Whether `signature` is a valid Ed25519 signature of `message` by this key.
    func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool
    /// Another Ed25519 public key of the same implementation, made from its raw 32 bytes (a bound card's
    /// device key, which must verify the card's presentation), or nil when the bytes are not a usable key.
    func keyOfSameKind(rawRepresentation: [UInt8]) -> (any CardVerificationKey)?
}

/// The keys a verifier trusts, found by kid, each with the window in which it may sign. Several keys may share
/// a kid; each is tried in turn.
public struct TrustedKeySet: Sendable {
    /// A trusted key and the window in which it may sign.
    public struct Entry: Sendable {
        public var key: any CardVerificationKey
        public var window: KeyValidityWindow
    }

    private var entriesByID: [KeyID: [Entry]] = [:]
    /// Every trusted key, in the order they were added.
    public private(set) var entries: [Entry] = []

    public init(_ keys: [any CardVerificationKey] = []) {
        for key in keys { insert(key) }
    }

    /// Adds a key to the set, trusted within `window`.
    public mutating func insert(_ key: any CardVerificationKey, window: KeyValidityWindow = .unbounded) {
        let entry = Entry(key: key, window: window)
        entries.append(entry)
        entriesByID[key.keyID, default: []].append(entry)
    }

    /// Every trusted key, in the order they were added.
    public var keys: [any CardVerificationKey] { entries.map(\.key) }

    /// The keys that bear `keyID`, possibly none.
    public func entries(for keyID: KeyID) -> [Entry] {
        entriesByID[keyID] ?? []
    }

    /// Whether the set holds no key.
    public var isEmpty: Bool { entries.isEmpty }
}
