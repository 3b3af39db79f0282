public import CardToken
public import Foundation
import PeezBasics

/// The members' ledgers: periods sold and cancelled, and the idempotency records of the requests that sold
/// them. Plain persistence: the use cases (pricing, placing a period, minting the card, the answer, retrying
/// a conflict) belong to the caller.
///
/// Concurrency is optimistic. Every change to a member's ledger takes the member's next version; a write made
/// from a ledger head another writer has moved on from fails with ``LedgerVersionConflict`` and writes nothing.
public protocol LedgerStore: Sendable {
    /// Claims `key` as in flight and reads the head of `member`'s ledger, in one round trip where the database
    /// can. Not `claimed`: the key was already recorded (ask ``idempotentRequest(_:now:abandonAfter:)`` how to
    /// answer). The claim need not reach the disk before the answer: it only spares a copy of the request the
    /// work of a sale another copy is making. Lost in a crash (two copies may then both be under way), it frees
    /// the key, and ``commitSale(_:expectedVersion:)`` records the key with its answer, once.
    func claim(_ key: IdempotencyKey, readingLedgerOf member: MemberReference, now: Int64) async throws -> (claimed: Bool, head: LedgerHead?)
    /// The head of `member`'s ledger, nil for an unknown member.
    func ledgerHead(of member: MemberReference) async throws -> LedgerHead?
    /// How to answer a request whose key was already recorded: replay its stored answer, wait for it, refuse a
    /// different request under the same key, or proceed (a claim older than `abandonAfter` seconds belonged to
    /// a process that died, and is taken over).
    func idempotentRequest(_ key: IdempotencyKey, now: Int64, abandonAfter: Int64) async throws -> IdempotencyDecision
    /// For a request refused before it was carried out (its credential withdrawn), in one transaction: the
    /// answer stored if its key made it already (`replay`: that request stands); `inFlight` while a copy is
    /// being carried out (one the network delivered while the credential was still accepted: ask again);
    /// `mismatch` if the key made another request; else the key is closed (`refused`), so that no copy still on
    /// its way is carried out after this refusal was answered.
    func closeIdempotencyKey(_ key: IdempotencyKey, now: Int64, abandonAfter: Int64) async throws -> IdempotencyDecision
    /// Frees an in-flight key whose request failed, so the client may correct it and retry with the same key.
    func releaseIdempotencyKey(_ key: IdempotencyKey) async throws

    /// Records `sale` in one durable transaction: the member's next version, the new head, the period, the
    /// card and the answer stored under the sale's key. Throws ``LedgerVersionConflict`` (and writes nothing)
    /// unless the member's ledger is still at `expectedVersion`, and ``IdempotencyKeyTaken`` (and writes
    /// nothing) if the key has been completed, closed or claimed by another request since it was claimed for this.
    func commitSale(_ sale: SaleRecord, expectedVersion: Int64) async throws

    /// The member's whole ledger (head and periods), nil for an unknown member.
    func memberLedger(of member: MemberReference) async throws -> MemberLedger?
    /// The whole ledger of the member who bought the period `id`, nil for an unknown period.
    func memberLedger(holdingPeriod id: UUID) async throws -> MemberLedger?
    /// Records `change` in one durable transaction: the member's next version and new head, the periods laid
    /// out again, and the revocation of every card the member was ever answered before it (the revocation
    /// list's next version: the stored card by its token id, and the member's cards issued before the returned
    /// `revoked_before`, which ``CardRevocationRule`` places after every card answered so far). Forgets the
    /// stored card. Throws ``LedgerVersionConflict`` (and writes nothing) unless the member's ledger is still at
    /// `expectedVersion`.
    func commitRevokingChange(_ change: RevokingChange, expectedVersion: Int64) async throws -> Int64

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
    /// The `revoked_before` of the member's last revoking change (0: none): a card signed now is dated no
    /// earlier (``CardRevocationRule``).
    public var cardsValidFrom: Int64
    /// The member's cohort: the Algiers month (`YYYYMM`) of their earliest live sale (nil: none).
    public var cohortMonth: Int64?

    public init(member: Member, version: Int64, coverageEnd: Int64?, lastPeriodSeq: Int64, cardsValidFrom: Int64 = 0, cohortMonth: Int64? = nil) {
        self.member = member
        self.version = version
        self.coverageEnd = coverageEnd
        self.lastPeriodSeq = lastPeriodSeq
        self.cardsValidFrom = cardsValidFrom
        self.cohortMonth = cohortMonth
    }
}

/// A member's whole ledger: the head and every period, which a cancellation lays out again.
public struct MemberLedger: Sendable, Hashable {
    public var head: LedgerHead
    /// The periods in purchase order.
    public var periods: [SubscriptionPeriod]

    public init(head: LedgerHead, periods: [SubscriptionPeriod]) {
        self.head = head
        self.periods = periods
    }
}

/// A change worked out by its use case that makes the member's earlier cards wrong (they show months that were
/// cancelled, or a phone that is no longer the member's), for the ledger to record with their revocation.
public struct RevokingChange: Sendable, Hashable {
    /// What changed, as recorded in the member's history.
    public enum Kind: String, Sendable, Hashable {
        case cancellation
        case deviceKey = "device_key"
        /// Every card of the member revoked, nothing else changed (a card seen at two shops at once).
        case cardsRevoked = "cards_revoked"
    }

    public var kind: Kind
    public var memberUUID: UUID
    /// The member's phone key after the change (nil: none).
    public var deviceKey: DeviceKey?
    /// The periods as read, and as they are after the change (the same count, in purchase order).
    public var periodsBefore: [SubscriptionPeriod]
    public var periodsAfter: [SubscriptionPeriod]
    /// The end of paid time after the change.
    public var coverageEnd: Int64?
    public var lastPeriodSeq: Int64
    public var recordedAt: Int64
    /// The audit trail's entry for the change, when an operator made it: written in the change's transaction.
    public var audit: AuditEntry?

    /// The change `kind` to `ledger`: its periods laid out as `periods`, the phone key `deviceKey`.
    public init(_ kind: Kind, to ledger: MemberLedger, periods: [SubscriptionPeriod], deviceKey: DeviceKey?, now: Int64) {
        self.kind = kind
        self.memberUUID = ledger.head.member.uuid
        self.deviceKey = deviceKey
        self.periodsBefore = ledger.periods
        self.periodsAfter = periods
        self.coverageEnd = CoverageSchedule.coverageEnd(periods)
        self.lastPeriodSeq = ledger.head.lastPeriodSeq
        self.recordedAt = now
    }

    /// The periods this change cancels, as they are after it.
    public var cancelledPeriods: [SubscriptionPeriod] {
        zip(periodsBefore, periodsAfter).filter { $0.cancelledAt == nil && $1.cancelledAt != nil }.map(\.1)
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
    /// The end of paid time the sale extends (the member's coverage end as read; nil: the member's first sale).
    public var renewsEnd: Int64?
    /// The member's cohort after the sale: theirs as read, or the month of this sale for a first one.
    public var cohortMonth: Int64 {
        cohortAsRead ?? AlgiersCalendar.month(ofDay: AlgiersCalendar.dayNumber(period.purchasedAt))
    }
    /// The member's cohort as read with the head (nil: no live sale).
    public var cohortAsRead: Int64?

    public init(
        period: SubscriptionPeriod,
        periodSeq: Int64,
        card: StoredCard,
        key: IdempotencyKey,
        response: StoredResponse,
        recordedAt: Int64,
        renewsEnd: Int64?,
        cohortAsRead: Int64? = nil
    ) {
        self.cohortAsRead = cohortAsRead
        self.renewsEnd = renewsEnd
        self.period = period
        self.periodSeq = periodSeq
        self.card = card
        self.key = key
        self.response = response
        self.recordedAt = recordedAt
    }
}

/// A sale's key was completed (by another copy of the request, after a claim lost in a database crash or taken
/// over as abandoned), closed by a refusal, or claimed by another request, since it was claimed for this sale:
/// nothing was written; answer as ``LedgerStore/idempotentRequest(_:now:abandonAfter:)`` says.
public struct IdempotencyKeyTaken: Error, Hashable, CustomStringConvertible {
    public var key: IdempotencyKey

    public init(key: IdempotencyKey) { self.key = key }

    public var description: String {
        "the idempotency key \(key.key) was completed or taken by another request while this sale was being recorded"
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
