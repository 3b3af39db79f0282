import CardCrypto
public import CardQR
public import CardToken
import CardWire
public import Foundation
public import Membership

/// Issues, keeps and checks membership cards: the domain's card rules on top of the store.
public struct CardService: Sendable {
    public let store: any MembershipStore
    public let keyRing: KeyRing
    public let issuer: CardIssuer
    public let renderer: PNGRenderer
    /// The clock every decision of the service reads (injected from the top, so tests can move it).
    public let clock: WallClock

    public init(store: any MembershipStore, keyRing: KeyRing, clock: WallClock, renderer: PNGRenderer = PNGRenderer()) {
        self.store = store
        self.keyRing = keyRing
        self.issuer = CardIssuer(signingKey: keyRing.signingKey)
        self.renderer = renderer
        self.clock = clock
    }

    /// The current time by the service's clock.
    public func now() -> Int64 { clock() }

    /// Signs and renders a card: `exp` is the end of paid time, or the moment of issue when there is none.
    public var mint: CardMinting {
        { [issuer, renderer] member, coverageEnd, now in
            let claims = CardClaims(
                subject: member.membershipID,
                expiresAt: max(0, coverageEnd ?? now),
                issuedAt: max(0, now),
                name: CardClaims.fittingName(member.name)
            )
            let token = try issuer.issue(claims)
            let png = try renderer.render(try QRMatrix.encode(token))
            CardMetrics.cardIssued()
            return StoredCard(
                memberUUID: member.uuid,
                tokenID: claims.tokenID.hex,
                token: token,
                png: png,
                issuedAt: now,
                expiresAt: claims.expiresAt,
                coverageEnd: coverageEnd
            )
        }
    }

    /// The member's current card: the stored one, or one signed and stored now (see
    /// ``MembershipStore/currentCard(memberUUID:now:mintCard:)``).
    public func currentCard(memberUUID: UUID) async throws -> StoredCard {
        try await store.currentCard(memberUUID: memberUUID, now: now(), mintCard: mint)
    }

    /// Verifies a token as the counter verifier does, against the published keys and the live revocation list.
    public func verify(_ token: String) async throws -> VerificationResult {
        let revocations = try RevocationListDocument(try await store.revocations()).revocationList()
        let verifier = CardVerifier(trustedKeys: keyRing.trustedKeys, revocations: revocations)
        let result = verifier.verify(token, now: now())
        CardMetrics.verification(result.verdict)
        return result
    }

    /// The membership id a scanned card names, if the card is authentic. Any authentic card identifies its
    /// member, expired or revoked included (a lapsed member renews with the card in their phone), so the
    /// revocation list is not read: only the signature and the token's form are checked.
    public func membershipID(identifiedBy token: String) throws -> String {
        let result = CardVerifier(trustedKeys: keyRing.trustedKeys).verify(token, now: now())
        guard let claims = result.claims else {
            throw MembershipError(
                .invalidFields,
                "The card cannot identify a member.",
                fields: ["card_token": "is \(result.verdict.rawValue): \(result.detail)"]
            )
        }
        return claims.subject
    }
}
