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
}

/// The keys a verifier trusts, found by kid. Several keys may share a kid; each is tried in turn.
public struct TrustedKeySet: Sendable {
    private var keysByID: [KeyID: [any CardVerificationKey]] = [:]
    /// Every trusted key, in the order they were added.
    public private(set) var keys: [any CardVerificationKey] = []

    public init(_ keys: [any CardVerificationKey] = []) {
        for key in keys { insert(key) }
    }

    /// Adds a key to the set.
    public mutating func insert(_ key: any CardVerificationKey) {
        keys.append(key)
        keysByID[key.keyID, default: []].append(key)
    }

    /// The keys that bear `keyID`, possibly none.
    public func keys(for keyID: KeyID) -> [any CardVerificationKey] {
        keysByID[keyID] ?? []
    }

    /// Whether the set holds no key.
    public var isEmpty: Bool { keys.isEmpty }
}
