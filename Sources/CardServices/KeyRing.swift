public import CardCrypto
public import CardToken
public import CardWire

/// The service's keys: the one it signs with now and every public key it publishes, so cards signed by a
/// retired key keep verifying after a rotation, each with its validity window.
public struct KeyRing: Sendable {
    /// The key new cards are signed with.
    public let signingKey: Ed25519PrivateKey
    /// Every published public key, the signing key's first.
    public let publishedKeys: [Ed25519PublicKey]
    /// The recorded validity windows by kid; a key without one has no recorded bounds.
    public let windows: [KeyID: KeyValidityWindow]

    public init(signingKey: Ed25519PrivateKey, publishedKeys: [Ed25519PublicKey], windows: [KeyID: KeyValidityWindow] = [:]) {
        self.signingKey = signingKey
        self.publishedKeys = [signingKey.publicKey] + publishedKeys.filter { $0.rawRepresentation != signingKey.publicKey.rawRepresentation }
        self.windows = windows
    }

    /// The keys the service's own verifier trusts: exactly the published ones, within their windows.
    public var trustedKeys: TrustedKeySet {
        var set = TrustedKeySet()
        for key in publishedKeys { set.insert(key, window: windows[key.keyID] ?? .unbounded) }
        return set
    }

    /// The key set document a verifier syncs: the signing key as `current`, the others `retired`.
    public func document() throws(CardCryptoError) -> KeySetDocument {
        try KeySetDocument(current: signingKey.publicKey, retired: Array(publishedKeys.dropFirst()), windows: windows)
    }

    /// Why the signing key may not sign a card at `now`, or nil when it may: the cards it would sign must
    /// fall inside its own window, or every verifier would refuse them.
    public func signingRefusal(now: Int64) -> String? {
        guard let window = windows[signingKey.keyID] else { return nil }
        guard let reason = window.refusal(issuedAt: now, leeway: 0) else { return nil }
        return "the signing key \(signingKey.keyID.hex) cannot sign cards now: a card \(reason)"
    }
}
