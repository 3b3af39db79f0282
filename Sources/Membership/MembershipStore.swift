public import Foundation

/// The ledger's storage: one interface, real implementations for SQLite and PostgreSQL.
///
/// Every method that changes money or periods runs in one transaction. Errors the caller can act on are
/// ``MembershipError``s (`notFound`, `conflict`, ...).
public protocol MembershipStore: Sendable {
    /// Creates `draft` (already validated) with the next membership id of its Algiers day. Creating the same
    /// uuid again with the same fields returns the existing member with `created == false`; other fields, or a
    /// phone or email already taken, are a `conflict`.
    func createMember(_ draft: MemberDraft, now: Int64) async throws -> (member: Member, created: Bool)
    func member(uuid: UUID) async throws -> Member?
    func member(membershipID: String) async throws -> Member?
    /// Applies `patch`; a phone or email already taken by another member is a `conflict`. A new name makes the
    /// stored card stale (the name is printed on it), so the next read issues a fresh one.
    func updateMember(uuid: UUID, patch: MemberPatch, now: Int64) async throws -> Member

    /// Creates the vendor with `id`; the same id again returns the vendor as first stored, so several
    /// processes may create one vendor at once.
    func createVendor(id: UUID, name: String, category: String, neighbourhood: String, now: Int64) async throws -> Vendor
    func vendor(id: UUID) async throws -> Vendor?

    /// Stores the credential; a credential with the same secret already stored makes this do nothing.
    func saveCredential(_ credential: APICredential) async throws
    func credential(secretHash: String) async throws -> APICredential?

    /// The member's periods in purchase order.
    func periods(memberUUID: UUID) async throws -> [SubscriptionPeriod]
    /// Vendor-sold periods, newest first: one vendor's, or everyone's when `vendorID` is nil.
    func activations(vendorID: UUID?, limit: Int) async throws -> [SubscriptionPeriod]
    func period(id: UUID) async throws -> SubscriptionPeriod?

    /// Records the start of an idempotent request, or says how to answer a repeat. An in-flight record older
    /// than `abandonAfter` seconds (its process died) is taken over.
    func beginIdempotentRequest(_ key: IdempotencyKey, now: Int64, abandonAfter: Int64) async throws -> IdempotencyDecision
    /// Forgets an in-flight request that failed, so the client may retry with the same key.
    func abandonIdempotentRequest(_ key: IdempotencyKey) async throws

    /// Sells the months once for `key`: claims the key (or answers a repeat as ``beginIdempotentRequest(_:now:abandonAfter:)``
    /// would), then in one transaction appends a period after the member's coverage, stores the card `mintCard`
    /// signs for it and the response `response` makes, to replay. Concurrent activations of one member all
    /// stack, exactly. An unknown member is `notFound`; after any failure the key is free again.
    func activate(
        _ activation: Activation,
        key: IdempotencyKey,
        now: Int64,
        abandonAfter: Int64,
        mintCard: CardMinting,
        response: @Sendable (ActivationResult) throws -> StoredResponse
    ) async throws -> ActivationOutcome

    /// In one transaction: cancels the period, lays the member's later periods out again, revokes every card
    /// issued before now and forgets the stored card.
    func cancelPeriod(id: UUID, now: Int64) async throws -> CancellationResult

    /// The member's stored card, if it is still current (nothing it shows has changed since it was made).
    func card(memberUUID: UUID) async throws -> StoredCard?
    /// The member's current card: the stored one, or one minted with `mintCard` and stored now. An unknown
    /// member is `notFound`.
    func currentCard(memberUUID: UUID, now: Int64, mintCard: CardMinting) async throws -> StoredCard

    /// The whole revocation list, or with `since` only the changes after that version (the whole list when
    /// `since` is newer than the list, which a counter holding another database's version may send).
    func revocations(since: Int64?) async throws -> RevocationSnapshot

    /// Keeps the scans a vendor's counter reported; a scan already kept (the same vendor, counter and entry
    /// number) is left as it was. Returns how many were new.
    func recordScans(_ scans: [CounterScan], vendorID: UUID, now: Int64) async throws -> Int
    /// Reported scans, newest first: of one member's cards, of one card, or all.
    func reportedScans(membershipID: String?, tokenID: String?, limit: Int) async throws -> [ReportedScan]
    /// Cards scanned at two different shops at most `within` seconds apart, scans since `since`; the closest
    /// pair of each card, newest first.
    func sharedCards(within: Int64, since: Int64, limit: Int) async throws -> [SharedCardSighting]

    /// Throws unless the database answers (one trivial query).
    func ping() async throws
}

extension MembershipStore {
    /// Creates a new vendor with a new id.
    public func createVendor(name: String, category: String, neighbourhood: String, now: Int64) async throws -> Vendor {
        try await createVendor(id: UUID(), name: name, category: category, neighbourhood: neighbourhood, now: now)
    }
}

extension MembershipStore {
    /// The whole revocation list.
    public func revocations() async throws -> RevocationSnapshot {
        try await revocations(since: nil)
    }
}
