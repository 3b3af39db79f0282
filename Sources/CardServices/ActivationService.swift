import CardCrypto
public import Foundation
public import Membership
public import PeezAPI
import PeezBasics

/// A vendor's cash sale at the counter, as one use case: idempotency, pricing, placing the period after the
/// member's coverage, signing the card, shaping the answer, and working it out again when another sale of the
/// same member committed first. The ledger only reads and writes.
///
/// Idempotency follows the IETF httpapi idempotency-key draft with Stripe's semantics: a retry with the same key
/// and request replays the first answer, the same key with another request is refused, and a retry while the
/// first is still being carried out is told to wait. Keys belong to the credential that sent them.
public struct ActivationService: Sendable {
    public let ledger: any LedgerStore
    public let cards: CardService
    /// An in-flight key older than this is taken to belong to a process that died, and may be retried.
    public static let abandonAfterSeconds: Int64 = 60

    public init(ledger: any LedgerStore, cards: CardService) {
        self.ledger = ledger
        self.cards = cards
    }

    /// A sale as the vendor asked for it.
    public struct SaleRequest: Sendable {
        public var body: ActivationRequest
        public var vendorID: UUID
        /// Whose idempotency keys these are: the credential that sent the request.
        public var keyScope: String
        public var idempotencyKey: String

        public init(body: ActivationRequest, vendorID: UUID, keyScope: String, idempotencyKey: String) {
            self.body = body
            self.vendorID = vendorID
            self.keyScope = keyScope
            self.idempotencyKey = idempotencyKey
        }
    }

    /// The answer to a sale, as JSON (``ActivationBody``): made now, or replayed from the first request with the
    /// same key.
    public enum SaleAnswer: Sendable, Hashable {
        case sold(StoredResponse)
        case replayed(StoredResponse)
        /// Not made: a copy of this request was refused first (its credential withdrawn since this one was let
        /// through, see ``refused(_:)``).
        case refused
    }

    /// Sells the months once per idempotency key. Throws a ``MembershipError``: `invalidFields` (the price, the
    /// member's identification), `notFound`, `requestInFlight`, `idempotencyKeyReused`, `conflict` (the member's
    /// ledger kept changing). A sale another copy of the request made first is answered as that one was. After any
    /// failure the key is free again.
    public func sell(_ request: SaleRequest) async throws -> SaleAnswer {
        let body = request.body
        try Pricing.validate(months: body.months, amountDZD: body.amount_dzd)
        let member = try identify(body)
        let key = try Self.idempotencyKey(of: request)
        let now = cards.now()
        var (claimed, head) = try await ledger.claim(key, readingLedgerOf: member, now: now)
        // Not claimed: answered as the key's record says, or an abandoned attempt is taken over.
        if !claimed, let earlier = try await earlierAnswer(key, now: now) { return earlier }
        do {
            return try await LedgerRetry.run { attempt in
                if attempt > 1 { head = try await ledger.ledgerHead(of: member) }
                guard let current = head else { throw MembershipError(.notFound, "No member has \(member).") }
                let sale = try cards.sale(
                    months: body.months,
                    amountDZD: body.amount_dzd,
                    source: .vendor,
                    vendorID: request.vendorID,
                    after: current,
                    key: key,
                    now: now
                )
                try await ledger.commitSale(sale, expectedVersion: current.version)
                CardMetrics.cardIssued()
                CardMetrics.activated()
                return .sold(sale.response)
            }
        } catch is IdempotencyKeyTaken {
            // Another copy of this request sold under the key first (this one's claim was lost in a database
            // crash, or taken over as abandoned): its answer is this one's. Nothing was written. (A claim found
            // abandoned meanwhile is this copy's now: freed, and the counter asked to send the sale again.)
            if let earlier = try await earlierAnswer(key, now: now) { return earlier }
            try? await ledger.releaseIdempotencyKey(key)
            throw Self.inFlight
        } catch {
            // Nothing was sold: free the key so the vendor can correct the request and retry.
            try? await ledger.releaseIdempotencyKey(key)
            throw error
        }
    }

    /// The answer a request gets whose key is recorded already: the stored one (`replayed`), `refused` for a key a
    /// refusal closed; or an error (another copy in flight, another request under the key). Nil: an abandoned
    /// claim was taken over, and the sale is this request's to make.
    private func earlierAnswer(_ key: IdempotencyKey, now: Int64) async throws -> SaleAnswer? {
        switch try await ledger.idempotentRequest(key, now: now, abandonAfter: Self.abandonAfterSeconds) {
        case .proceed: return nil
        case .replay(let stored):
            CardMetrics.activationReplayed()
            return .replayed(stored)
        case .inFlight: throw Self.inFlight
        case .mismatch:
            throw MembershipError(.idempotencyKeyReused, "This Idempotency-Key was used for a different request; use a new key for a new sale.")
        case .refused: return .refused
        }
    }

    private static let inFlight = MembershipError(
        .requestInFlight,
        "A request with this Idempotency-Key is still being processed; retry in a moment."
    )

    /// A sale refused because its credential is no longer accepted: the first answer if its key sold it already
    /// (a counter whose credential was revoked since is told of its sale this way: the sale stands), or nil, and
    /// then no copy of it still on its way is sold (the key is closed). Throws `requestInFlight` while a copy
    /// let through before the withdrawal is being sold (asked again, it is told of that sale).
    public func refused(_ request: SaleRequest) async throws -> StoredResponse? {
        switch try await ledger.closeIdempotencyKey(try Self.idempotencyKey(of: request), now: cards.now(), abandonAfter: Self.abandonAfterSeconds) {
        case .replay(let stored): return stored
        case .inFlight: throw MembershipError(.requestInFlight, "A copy of this sale is still being processed; retry in a moment.")
        case .proceed, .mismatch, .refused: return nil
        }
    }

    /// The key a sale is recorded under: the credential's scope, the client's key, and a hash of the request.
    private static func idempotencyKey(of request: SaleRequest) throws -> IdempotencyKey {
        IdempotencyKey(
            scope: request.keyScope,
            key: request.idempotencyKey,
            requestHash: Hex.encode(SHA256.hash(try RequestDecoding.canonical(request.body)))
        )
    }

    /// The member the sale is for: the one the scanned card names, or the membership id typed in.
    private func identify(_ body: ActivationRequest) throws -> MemberReference {
        switch (body.card_token, body.membership_id) {
        case (let token?, nil):
            return .membershipID(try cards.membershipID(identifiedBy: token))
        case (nil, let membershipID?):
            guard Member.isMembershipID(membershipID) else {
                throw MembershipError(
                    .invalidFields,
                    "The membership id is not one.",
                    fields: ["membership_id": "must look like PEEZ-20251103-00002"]
                )
            }
            return .membershipID(membershipID)
        case (nil, nil):
            throw MembershipError(
                .invalidFields,
                "Say which member the months are for.",
                fields: ["card_token": "send the scanned card token, or else membership_id (e.g. PEEZ-20251103-00002)"]
            )
        case (.some, .some):
            throw MembershipError(
                .invalidFields,
                "Identify the member one way.",
                fields: ["card_token": "send the scanned card token or membership_id, not both"]
            )
        }
    }
}
