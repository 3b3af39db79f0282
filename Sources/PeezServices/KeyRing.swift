public import CardCrypto
public import CardToken
public import CardWire

/// The service's keys: the one it signs with now and every public key it publishes, so cards signed by a
/// retired key keep verifying after a rotation.
public struct KeyRing: Sendable {
    /// The key new cards are signed with.
    public let signingKey: Ed25519PrivateKey
    /// Every published public key, the signing key's first.
    public let publishedKeys: [Ed25519PublicKey]

    public init(signingKey: Ed25519PrivateKey, publishedKeys: [Ed25519PublicKey]) {
        self.signingKey = signingKey
        self.publishedKeys = [signingKey.publicKey] + publishedKeys.filter { $0.rawRepresentation != signingKey.publicKey.rawRepresentation }
    }

    /// The keys the service's own verifier trusts: exactly the published ones.
    public var trustedKeys: TrustedKeySet { TrustedKeySet(publishedKeys) }

    /// The key set document a verifier syncs: the signing key as `current`, the others `retired`.
    public func document() throws(CardCryptoError) -> KeySetDocument {
        try KeySetDocument(current: signingKey.publicKey, retired: Array(publishedKeys.dropFirst()))
    }
}
