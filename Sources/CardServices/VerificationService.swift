import CardToken
public import Membership
public import PeezAPI
import PeezBasics

/// `POST /v1/verify` as a use case: the token's verdict by the card rules, and the member's live coverage from the
/// ledger; a card that only shows less paid time than the member has (paid since, not revoked, not bound to a
/// phone) is valid by the ledger, what the card says kept in `card_verdict`: one story for every counter.
public struct VerificationService: Sendable {
    let cards: CardService
    /// The heads of the members' ledgers.
    let store: any LedgerStore

    public init(cards: CardService, store: any LedgerStore) {
        self.cards = cards
        self.store = store
    }

    /// The answer to `token`.
    public func verify(_ token: String) async throws -> VerifyBody {
        let result = try await cards.verify(token)
        var answer = VerifyBody(verdict: result.verdict.rawValue, detail: result.detail.isEmpty ? nil : result.detail, kid: result.keyID?.hex)
        answer.step = result.step
        answer.presented_at = result.presentedAt
        guard let claims = result.claims else { return answer }
        answer.sub = claims.subject
        answer.name = claims.name
        answer.exp = claims.expiresAt
        answer.iat = claims.issuedAt
        answer.cti = claims.tokenID.hex
        // The member and the end of their paid time, as the head of their ledger keeps it: one read.
        guard let head = try await store.ledgerHead(of: .membershipID(claims.subject)) else {
            // Authentic, but not one of this ledger's members (a card from another deployment, or test data).
            answer.detail = [answer.detail, "the ledger has no member \(claims.subject): no live coverage to show"]
                .compactMap { $0 }.joined(separator: "; ")
            return answer
        }
        let now = cards.now()
        let coverageEnd = head.coverageEnd
        answer.coverage = CoverageBody(coverageEnd: coverageEnd, now: now)
        if result.verdict == .expired || result.verdict == .noPaidPeriod, claims.deviceKey == nil, let end = coverageEnd, end > now,
            try await cards.isRevoked(claims) == false
        {
            answer.card_verdict = result.verdict.rawValue
            answer.card_outdated = true
            answer.verdict = Verdict.valid.rawValue
            answer.step = nil
            answer.detail =
                "the card is older than the member's latest sale (paid until \(AlgiersCalendar.iso8601(end))): have the member open the PEEZ app to fetch the new card"
        }
        return answer
    }
}
