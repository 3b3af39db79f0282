import CardCrypto
public import CardWire
import Membership

extension CardService {
    /// The counter bundle, signed with the card key: the published keys, the revocation list (with `since`,
    /// only the changes after that version, or the whole list when the ledger never had that version), the
    /// service's clock, valid for `validity` seconds.
    public func signedCounterBundle(since: Int64?, validity: Int64 = CounterBundle.defaultValidity) async throws -> [UInt8] {
        let snapshot = try await store.revocations(since: since)
        let issuedAt = now()
        let bundle = CounterBundle(
            issuedAt: issuedAt,
            validUntil: issuedAt + validity,
            keys: try keyRing.document().keys,
            revocations: RevocationListDocument(snapshot)
        )
        return try bundle.signed(with: keyRing.signingKey)
    }
}
