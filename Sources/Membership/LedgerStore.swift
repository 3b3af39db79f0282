public import Foundation

/// The members' ledgers: periods sold and cancelled, and the idempotency records of the requests that sold
/// them. Plain persistence: the use cases (pricing, placing a period, minting the card, the answer, retrying
/// a conflict) belong to the caller.
///
/// Concurrency is optimistic. Every change to a member's ledger takes the member's next version; a write made
/// from a ledger head another writer has moved on from fails with ``LedgerVersionConflict`` and writes nothing.
public protocol LedgerStore: Sendable {
    /// Claims `key` as in flight and reads the head of `member`'s ledger, in one round trip where the database
    /// can. Not `claimed`: the key was already recorded (ask ``idempotentRequest(_:now:abandonAfter:)`` how to
    /// answer). The claim need not reach the disk before the answer: lost in a crash, it only frees the key of a
    /// sale that was not made, and ``commitSale(_:expectedVersion:)`` records the key again with its answer.
    func claim(_ key: IdempotencyKey, readingLedgerOf member: MemberReference, now: Int64) async throws -> (claimed: Bool, head: LedgerHead?)
    /// The head of `member`'s ledger, nil for an unknown member.
    func ledgerHead(of member: MemberReference) async throws -> LedgerHead?
    /// How to answer a request whose key was already recorded: replay its stored answer, wait for it, refuse a
    /// different request under the same key, or proceed (a claim older than `abandonAfter` seconds belonged to
    /// a process that died, and is taken over).
    func idempotentRequest(_ key: IdempotencyKey, now: Int64, abandonAfter: Int64) async throws -> IdempotencyDecision
    /// Frees an in-flight key whose request failed, so the client may correct it and retry with the same key.
    func releaseIdempotencyKey(_ key: IdempotencyKey) async throws

    /// Records `sale` in one durable transaction: the member's next version, the new head, the period, the
    /// card and the answer stored under the sale's key. Throws ``LedgerVersionConflict`` (and writes nothing)
    /// unless the member's ledger is still at `expectedVersion`.
    func commitSale(_ sale: SaleRecord, expectedVersion: Int64) async throws

    /// In one transaction: cancels the period, lays the member's later periods out again, revokes every card
    /// issued before now and forgets the stored card.
    func cancelPeriod(id: UUID, now: Int64) async throws -> CancellationResult

    /// The member's periods in purchase order.
    func periods(memberUUID: UUID) async throws -> [SubscriptionPeriod]
    /// Vendor-sold periods, newest first: one vendor's, or everyone's when `vendorID` is nil.
    func activations(vendorID: UUID?, limit: Int) async throws -> [SubscriptionPeriod]
    func period(id: UUID) async throws -> SubscriptionPeriod?
}

/// The head of a member's ledger: what a sale or a new card is worked out from.
public struct LedgerHead: Sendable, Hashable {
    public var member: Member
    /// The member's latest version (0 before any change).
    public var version: Int64
    /// The end of the member's paid time (nil: none).
    public var coverageEnd: Int64?
    /// The number of the member's last period (0: none).
    public var lastPeriodSeq: Int64

    public init(member: Member, version: Int64, coverageEnd: Int64?, lastPeriodSeq: Int64) {
        self.member = member
        self.version = version
        self.coverageEnd = coverageEnd
        self.lastPeriodSeq = lastPeriodSeq
    }
}

/// A sale worked out by its use case, for the ledger to record as one transaction.
public struct SaleRecord: Sendable, Hashable {
    /// The period, placed after the member's coverage.
    public var period: SubscriptionPeriod
    /// The period's number in the member's ledger (the head's last one + 1).
    public var periodSeq: Int64
    /// The card signed for the coverage the period brings.
    public var card: StoredCard
    /// The request's key, recorded as done with ``response``.
    public var key: IdempotencyKey
    /// The answer a retry with the same key replays.
    public var response: StoredResponse
    public var recordedAt: Int64

    public init(period: SubscriptionPeriod, periodSeq: Int64, card: StoredCard, key: IdempotencyKey, response: StoredResponse, recordedAt: Int64) {
        self.period = period
        self.periodSeq = periodSeq
        self.card = card
        self.key = key
        self.response = response
        self.recordedAt = recordedAt
    }
}

/// Another writer changed the member's ledger since its head was read: nothing was written; work the change
/// out again from a fresh head.
public struct LedgerVersionConflict: Error, Hashable, CustomStringConvertible {
    public var memberUUID: UUID
    public var expectedVersion: Int64

    public init(memberUUID: UUID, expectedVersion: Int64) {
        self.memberUUID = memberUUID
        self.expectedVersion = expectedVersion
    }

    public var description: String {
        "the ledger of member \(memberUUID.lowercasedText) moved past version \(expectedVersion) while a change was being recorded"
    }
}
