import CardCrypto
public import CardQR
public import CardToken
import CardWire
public import Foundation
public import Membership

/// Issues, keeps and checks membership cards: the domain's card rules on top of the store.
public struct CardService: Sendable {
    /// The cards kept and the revocation list: all this service reads and writes.
    package let store: any CardStore & RevocationStore
    public let keyRing: KeyRing
    public let issuer: CardIssuer
    public let renderer: PNGRenderer
    /// The clock every decision of the service reads (injected from the top, so tests can move it).
    public let clock: WallClock
    /// The revocation list verifications check, kept parsed (shared by every copy of this service).
    private let revocations = LiveRevocationList()

    public init(store: any CardStore & RevocationStore, keyRing: KeyRing, clock: WallClock, renderer: PNGRenderer = PNGRenderer()) {
        self.store = store
        self.keyRing = keyRing
        self.issuer = CardIssuer(signingKey: keyRing.signingKey)
        self.renderer = renderer
        self.clock = clock
    }

    /// The current time by the service's clock.
    public func now() -> Int64 { clock() }

    /// Signs a card from the head of a member's ledger, whose paid time ends at `coverageEnd` (nil: none), at
    /// `now`: dated no earlier than the member's last revoking change (``CardRevocationRule``); `exp` is the end
    /// of paid time, or the moment of issue when there is none (a member with no paid time still gets a card,
    /// which a vendor scans to sell the first months). The picture is rendered when the card is first shown.
    public func sign(from head: LedgerHead, coverageEnd: Int64?, now: Int64) throws -> StoredCard {
        let issuedAt = max(0, CardRevocationRule.issuedAt(now: now, cardsValidFrom: head.cardsValidFrom))
        let claims = CardClaims(
            subject: head.member.membershipID,
            expiresAt: max(0, coverageEnd ?? issuedAt),
            issuedAt: issuedAt,
            name: CardClaims.fittingName(head.member.name),
            deviceKey: head.member.deviceKey
        )
        return StoredCard(
            memberUUID: head.member.uuid,
            tokenID: claims.tokenID.hex,
            token: try issuer.issue(claims),
            png: nil,
            issuedAt: issuedAt,
            expiresAt: claims.expiresAt,
            coverageEnd: coverageEnd
        )
    }

    /// The member's current card with its QR picture: the kept one, or one signed now and kept; its picture
    /// rendered and kept the first time it is asked for. A card is answered only once kept for the member's
    /// state it was signed from (compare and set): one signed while the member changed is signed again from the
    /// new state, so no revoking change can miss it. An unknown member is `notFound`.
    public func currentCard(memberUUID: UUID) async throws -> (card: StoredCard, png: [UInt8]) {
        var card = try await keptCard(memberUUID: memberUUID, drawn: true)
        if let png = card.png { return (card, png) }
        // A card a sale signed, shown for the first time.
        let png = try picture(of: card)
        card.png = png
        return (try await store.keepPicture(of: card), png)
    }

    /// The member's current card, kept as ``currentCard(memberUUID:)`` keeps it, without drawing a picture it
    /// would not show (a Wallet pass carries the token; Wallet draws its own barcode).
    public func currentToken(memberUUID: UUID) async throws -> StoredCard {
        try await keptCard(memberUUID: memberUUID, drawn: false)
    }

    /// The kept card, or one signed now from the member's state and kept (compare and set, see
    /// ``currentCard(memberUUID:)``), its picture drawn before the write when `drawn`: a card first read is then
    /// shown at once, in one write.
    private func keptCard(memberUUID: UUID, drawn: Bool) async throws -> StoredCard {
        try await LedgerRetry.run { _ in
            if let kept = try await store.card(memberUUID: memberUUID) { return kept }
            guard let basis = try await store.cardBasis(memberUUID: memberUUID) else {
                throw MembershipError(.notFound, "No member has uuid \(memberUUID.lowercasedText).")
            }
            var signed = try sign(from: basis.head, coverageEnd: basis.head.coverageEnd, now: now())
            if drawn { signed.png = try picture(of: signed) }
            let kept = try await store.keepCard(signed, signedFrom: basis)
            if kept == signed { CardMetrics.cardIssued() }
            return kept
        }
    }

    /// The card's QR code as PNG.
    private func picture(of card: StoredCard) throws -> [UInt8] {
        try renderer.render(try QRMatrix.encode(card.token))
    }

    /// Verifies a token as the counter verifier does, against the published keys and the live revocation list.
    public func verify(_ token: String) async throws -> VerificationResult {
        let verifier = CardVerifier(trustedKeys: keyRing.trustedKeys, revocations: try await revocations.current(from: store))
        let result = verifier.verify(token, now: now())
        CardMetrics.verification(result.verdict)
        return result
    }

    /// Whether the live revocation list revokes a card with `claims` (its token, or its member's cards before then).
    public func isRevoked(_ claims: CardClaims) async throws -> Bool {
        try await revocations.current(from: store).revocationReason(for: claims) != nil
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
