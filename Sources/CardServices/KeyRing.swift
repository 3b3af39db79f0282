public import CardCrypto
public import CardToken
public import CardWire

/// The service's keys: the one it signs with now and every public key it publishes, so cards signed by a
/// retired key keep verifying after a rotation, each with its validity window.
///
/// Outside development the ring never holds the development key (``DevelopmentKey``): it is not signed with,
/// published or trusted, whatever folder or file names it.
public struct KeyRing: Sendable {
    /// The key new cards are signed with.
    public let signingKey: Ed25519PrivateKey
    /// Every published public key, the signing key's first.
    public let publishedKeys: [Ed25519PublicKey]
    /// The recorded validity windows by kid; a key without one has no recorded bounds.
    public let windows: [KeyID: KeyValidityWindow]
    /// A development service's ring, which may hold the development key; its counter bundles say so.
    public let development: Bool

    /// A ring signing with `signingKey` and publishing it with `publishedKeys`. Unless `development`, a ring that
    /// would hold the development key is refused: ``KeyRingError/signsWithDevelopmentKey`` or
    /// ``KeyRingError/publishesDevelopmentKey``.
    public init(
        signingKey: Ed25519PrivateKey,
        publishedKeys: [Ed25519PublicKey],
        windows: [KeyID: KeyValidityWindow] = [:],
        development: Bool = false
    ) throws(KeyRingError) {
        if !development {
            if signingKey.keyID.hex == DevelopmentKey.keyID { throw .signsWithDevelopmentKey }
            if publishedKeys.contains(where: { $0.keyID.hex == DevelopmentKey.keyID }) { throw .publishesDevelopmentKey }
        }
        self.signingKey = signingKey
        self.publishedKeys = [signingKey.publicKey] + publishedKeys.filter { $0.rawRepresentation != signingKey.publicKey.rawRepresentation }
        self.windows = windows
        self.development = development
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

/// A key ring a production service must not run with.
public enum KeyRingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The signing key is the development key, whose private half is public.
    case signsWithDevelopmentKey
    /// The published keys include the development key: counters would trust cards anyone can sign.
    case publishesDevelopmentKey

    public var description: String {
        switch self {
        case .signsWithDevelopmentKey:
            return "the signing key is the development key \(DevelopmentKey.keyID), whose private half is in the repository"
        case .publishesDevelopmentKey:
            return "the published keys include the development key \(DevelopmentKey.keyID), whose private half is in the repository"
        }
    }
}
