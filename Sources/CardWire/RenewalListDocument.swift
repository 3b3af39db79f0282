public import CardToken
import Foundation
import PeezBasics

/// Members whose paid time was extended after the cards their phones hold were issued, as the counter bundle
/// carries them: a counter shown such an old card (refused only as expired or unpaid) answers from the renewal
/// instead, so a member who paid at one shop is never told at the next that he has not.
///
/// ```json
/// {"after": 1795600000, "entries": [{"membership_id": "PEEZ-20251103-00002", "paid_until": 1800000000, "renewed_at": 1795640000}]}
/// ```
///
/// A renewal applies to a card of its member issued before `renewed_at`, authentic and not revoked, from
/// `renewed_at` until `paid_until` (``applies(to:now:)``). A revocation always wins: a cancelled sale revokes the
/// member's cards, and every card issued since is dated after the renewal, so no card gains time it was not sold.
public struct RenewalListDocument: Codable, Sendable, Hashable {
    /// One member's renewal: the end of paid time and when the sale that brought it was recorded.
    public struct Entry: Codable, Sendable, Hashable {
        public var membershipID: String
        public var paidUntil: Int64
        public var renewedAt: Int64

        enum CodingKeys: String, CodingKey {
            case membershipID = "membership_id"
            case paidUntil = "paid_until"
            case renewedAt = "renewed_at"
        }

        public init(membershipID: String, paidUntil: Int64, renewedAt: Int64) {
            self.membershipID = membershipID
            self.paidUntil = paidUntil
            self.renewedAt = renewedAt
        }

        /// Whether this renewal answers for `claims` at `now`: the card is its member's, issued before the sale,
        /// and the renewed time covers now (within `leeway` either side, as card dates are).
        public func applies(to claims: CardClaims, now: Int64, leeway: Int64 = CardVerifier.defaultLeeway) -> Bool {
            claims.subject == membershipID && claims.issuedAt < renewedAt && now >= renewedAt.subtractingClamped(leeway)
                && now <= paidUntil.addingClamped(leeway)
        }
    }

    /// In a delta, the time from which sales are listed (the counter's previous sync, less a margin); absent for
    /// the whole list.
    public var after: Int64?
    public var entries: [Entry]

    public init(after: Int64? = nil, entries: [Entry]) {
        self.after = after
        self.entries = entries
    }

    /// The longest the list may be: bounded like the revocation list.
    public static let maxEntries = 2_000_000

    /// This list with `newer` applied: a whole list replaces it, a delta's entries replace each member's older
    /// one; entries whose paid time ended before `now` are dropped.
    public func applying(_ newer: RenewalListDocument, now: Int64) -> RenewalListDocument {
        var byMember = newer.after == nil ? [:] : Dictionary(entries.map { ($0.membershipID, $0) }) { $1 }
        for entry in newer.entries where (byMember[entry.membershipID]?.renewedAt ?? .min) <= entry.renewedAt {
            byMember[entry.membershipID] = entry
        }
        return RenewalListDocument(
            entries: byMember.values.filter { $0.paidUntil.addingClamped(CardVerifier.defaultLeeway) >= now }.sorted {
                $0.membershipID < $1.membershipID
            }
        )
    }

    /// The entries by membership id, to look a scanned card's member up.
    public var byMember: [String: Entry] { Dictionary(entries.map { ($0.membershipID, $0) }) { $0.renewedAt >= $1.renewedAt ? $0 : $1 } }

    /// Checks what a counter must not trust blindly: bounded, one entry a member, membership ids of the card's
    /// form, a paid time that ends after the sale.
    public func validated() throws(CardWireError) -> RenewalListDocument {
        guard entries.count <= Self.maxEntries else {
            throw CardWireError(.invalidEntry, "the renewal list has more than \(Self.maxEntries) entries")
        }
        var seen = Set<String>()
        for entry in entries {
            guard seen.insert(entry.membershipID).inserted else {
                throw CardWireError(.invalidEntry, "the renewal list names \(entry.membershipID.prefix(40)) twice")
            }
            guard (1...64).contains(entry.membershipID.utf8.count), entry.paidUntil > entry.renewedAt else {
                throw CardWireError(.invalidEntry, "a renewal entry is not valid: \(entry.membershipID.prefix(40))")
            }
        }
        return self
    }
}
