import CardCrypto
public import CardWire
import Membership
import PeezBasics

extension CardService {
    /// The counter bundle, signed with the card key: the published keys, the revocation list (with `since`,
    /// only the changes after that version, or the whole list when the ledger never had that version), the
    /// service's clock, valid for `validity` seconds.
    ///
    /// The renewals come whole, or with `renewalsAfter` (the service time of the bundle the counter holds) only
    /// the members renewed since then, less ``renewalMargin`` so that a sale committing late is not missed.
    public func signedCounterBundle(
        since: Int64?,
        renewalsAfter: Int64? = nil,
        validity: Int64 = CounterBundle.defaultValidity
    ) async throws
        -> [UInt8]
    {
        let snapshot = try await store.revocations(since: since)
        let issuedAt = now()
        let after = renewalsAfter.map { $0.subtractingClamped(Self.renewalMargin) }
        let renewals = try await store.renewals(after: after, now: issuedAt).map {
            RenewalListDocument.Entry(membershipID: $0.membershipID, paidUntil: $0.paidUntil, renewedAt: $0.renewedAt)
        }
        let bundle = CounterBundle(
            issuedAt: issuedAt,
            validUntil: issuedAt + validity,
            keys: try keyRing.document().keys,
            revocations: RevocationListDocument(snapshot),
            renewals: RenewalListDocument(after: after, entries: renewals),
            development: keyRing.development ? true : nil
        )
        return try bundle.signed(with: keyRing.signingKey)
    }

    /// How far before a counter's last sync renewals are listed again: longer than any sale takes to commit.
    public static let renewalMargin: Int64 = 300
}
