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

    /// Signs a card for `member`, whose paid time ends at `coverageEnd` (nil: none), at `now`: `exp` is the end
    /// of paid time, or the moment of issue when there is none (a member with no paid time still gets a card,
    /// which a vendor scans to sell the first months). The picture is rendered when the card is first shown.
    public func sign(for member: Member, coverageEnd: Int64?, now: Int64) throws -> StoredCard {
        let claims = CardClaims(
            subject: member.membershipID,
            expiresAt: max(0, coverageEnd ?? now),
            issuedAt: max(0, now),
            name: CardClaims.fittingName(member.name),
            deviceKey: member.deviceKey
        )
        return StoredCard(
            memberUUID: member.uuid,
            tokenID: claims.tokenID.hex,
            token: try issuer.issue(claims),
            png: nil,
            issuedAt: now,
            expiresAt: claims.expiresAt,
            coverageEnd: coverageEnd
        )
    }

    /// The member's current card with its QR picture: the kept one, or one signed now and kept; its picture
    /// rendered and kept the first time it is asked for. An unknown member is `notFound`.
    public func currentCard(memberUUID: UUID) async throws -> (card: StoredCard, png: [UInt8]) {
        var card: StoredCard
        if let kept = try await store.card(memberUUID: memberUUID) {
            card = kept
        } else {
            guard let basis = try await store.cardBasis(memberUUID: memberUUID) else {
                throw MembershipError(.notFound, "No member has uuid \(memberUUID.lowercasedText).")
            }
            let head = basis.head
            // Signed and drawn here, kept in one write: a card first read is shown at once.
            var signed = try sign(for: head.member, coverageEnd: head.coverageEnd, now: now())
            signed.png = try picture(of: signed)
            card = try await store.keepCard(signed, signedFrom: basis)
            if card == signed { CardMetrics.cardIssued() }
        }
        if let png = card.png { return (card, png) }
        // A card a sale signed, shown for the first time.
        let png = try picture(of: card)
        card.png = png
        return (try await store.keepPicture(of: card), png)
    }

    /// The card's QR code as PNG.
    private func picture(of card: StoredCard) throws -> [UInt8] {
        try renderer.render(try QRMatrix.encode(card.token))
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
