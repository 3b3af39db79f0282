import CardServices
import CardToken
import Foundation
import Membership
import MembershipSQL

// The ledger's use cases as the store tests drive them: a sale and a card worked out on the store's plain
// persistence (claim and read, commit at an expected version, keep a card), with a card "signed" without
// cryptography, so each test states what the store must keep and refuse. The application service that runs
// these use cases for the service (ActivationService, CardService) is tested through the HTTP API.

/// A vendor's cash sale of 1 to 3 months.
struct Activation: Sendable, Hashable {
    var member: MemberReference
    var vendorID: UUID
    var months: Int
    var amountDZD: Int
}

/// What a sale produced.
struct ActivationResult: Sendable, Hashable {
    var member: Member
    var period: SubscriptionPeriod
    var coverageEnd: Int64
    var card: StoredCard
}

/// How a sale with an idempotency key was answered.
enum ActivationOutcome: Sendable, Hashable {
    case sold(ActivationResult, StoredResponse)
    case replay(StoredResponse)
    case inFlight
    case mismatch
}

/// Signs a card for a member whose paid time ends at `coverageEnd` (nil: none), at `now`.
typealias CardMinting = @Sendable (_ member: Member, _ coverageEnd: Int64?, _ now: Int64) throws -> StoredCard

extension SQLMembershipStore {
    /// Sells the months once for `key`, working the sale out again while other sales of the member commit first.
    func activate(
        _ activation: Activation,
        key: IdempotencyKey,
        now: Int64,
        abandonAfter: Int64,
        mintCard: CardMinting,
        response: @Sendable (ActivationResult) throws -> StoredResponse
    ) async throws -> ActivationOutcome {
        try Pricing.validate(months: activation.months, amountDZD: activation.amountDZD)
        var (claimed, head) = try await claim(key, readingLedgerOf: activation.member, now: now)
        if !claimed {
            switch try await idempotentRequest(key, now: now, abandonAfter: abandonAfter) {
            case .proceed: break
            case .replay(let stored): return .replay(stored)
            case .inFlight: return .inFlight
            case .mismatch: return .mismatch
            }
        }
        do {
            while true {
                guard let current = head else { throw MembershipError(.notFound, "No member has \(activation.member).") }
                let period = CoverageSchedule.placed(
                    SubscriptionPeriod(
                        id: UUID(),
                        memberUUID: current.member.uuid,
                        months: activation.months,
                        amountDZD: activation.amountDZD,
                        source: .vendor,
                        vendorID: activation.vendorID,
                        purchasedAt: now,
                        startsAt: now,
                        endsAt: now
                    ),
                    after: current.coverageEnd
                )
                let card = try mintCard(current.member, period.endsAt, now)
                let result = ActivationResult(member: current.member, period: period, coverageEnd: period.endsAt, card: card)
                let stored = try response(result)
                let sale = SaleRecord(period: period, periodSeq: current.lastPeriodSeq + 1, card: card, key: key, response: stored, recordedAt: now)
                do {
                    try await commitSale(sale, expectedVersion: current.version)
                    return .sold(result, stored)
                } catch is LedgerVersionConflict {
                    head = try await ledgerHead(of: activation.member)
                }
            }
        } catch {
            try? await releaseIdempotencyKey(key)
            throw error
        }
    }

    /// Claims `key` for a request (a new key), or says how to answer a repeat.
    func beginIdempotentRequest(_ key: IdempotencyKey, now: Int64, abandonAfter: Int64) async throws -> IdempotencyDecision {
        let (claimed, _) = try await claim(key, readingLedgerOf: .uuid(UUID()), now: now)
        return claimed ? .proceed : try await idempotentRequest(key, now: now, abandonAfter: abandonAfter)
    }

    func abandonIdempotentRequest(_ key: IdempotencyKey) async throws {
        try await releaseIdempotencyKey(key)
    }

    /// The member's current card: the kept one, or one minted with `mintCard` and kept now.
    func currentCard(memberUUID: UUID, now: Int64, mintCard: CardMinting) async throws -> StoredCard {
        if let card = try await card(memberUUID: memberUUID) { return card }
        guard let basis = try await cardBasis(memberUUID: memberUUID) else {
            throw MembershipError(.notFound, "No member has uuid \(memberUUID).")
        }
        return try await keepCard(try mintCard(basis.head.member, basis.head.coverageEnd, now), signedFrom: basis)
    }

    /// Cancels the period as the service does (``MemberChangeService``), at `now`.
    func cancelPeriod(id: UUID, now: Int64) async throws -> CancellationResult {
        try await MemberChangeService(ledger: self, clock: WallClock { now }).cancelPeriod(id: id)
    }

    /// Binds the member's cards to `key` as the service does (``MemberChangeService``), at `now`.
    func replaceDeviceKey(memberUUID: UUID, with key: DeviceKey?, now: Int64) async throws -> (member: Member, changed: Bool) {
        try await MemberChangeService(ledger: self, clock: WallClock { now }).replaceDeviceKey(memberUUID: memberUUID, with: key)
    }
}
