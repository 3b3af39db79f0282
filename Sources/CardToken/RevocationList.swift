import PeezBasics

/// Cards that must no longer be accepted (verification step 11).
public struct RevocationList: Sendable, Hashable {
    /// Revoked token ids (`cti`).
    public var revokedTokenIDs: Set<TokenID>
    /// Per membership id: every token issued strictly before this time (seconds since epoch) is revoked.
    public var revokedBefore: [String: Int64]

    public init(revokedTokenIDs: Set<TokenID> = [], revokedBefore: [String: Int64] = [:]) {
        self.revokedTokenIDs = revokedTokenIDs
        self.revokedBefore = revokedBefore
    }

    /// Why these claims are revoked, or nil when they are not.
    public func revocationReason(for claims: CardClaims) -> String? {
        if revokedTokenIDs.contains(claims.tokenID) {
            return "token \(claims.tokenID) is on the revocation list"
        }
        if let cutoff = revokedBefore[claims.subject], claims.issuedAt < cutoff {
            return "member \(claims.subject) has every card issued before \(AlgiersCalendar.minuteStamp(cutoff)) (Algiers) revoked"
        }
        return nil
    }
}
