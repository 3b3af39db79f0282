import CardCrypto
import CardServices
import CardToken
import Foundation
import Membership
import MembershipSQL
import PeezAPI
import PeezBasics
import Synchronization

// The store tests drive the ledger through the service's own use cases: a sale through `ActivationService`, a card
// through `CardService`, a cancellation or a device key through `MemberChangeService`, each with a real signing key
// and a clock the test sets, so what the store keeps and refuses is proven under the code that runs in production.

/// A time the test sets, read by the services as their clock.
final class TestClock: Sendable {
    private let seconds: Mutex<Int64>

    init(_ start: Int64 = 0) { seconds = Mutex(start) }

    func set(_ time: Int64) { seconds.withLock { $0 = time } }

    var wallClock: WallClock { WallClock { self.seconds.withLock { $0 } } }
}

/// What a sale produced, read back from its answer and the store.
struct SaleResult: Sendable {
    var member: Member
    var period: SubscriptionPeriod
    var coverageEnd: Int64
    var card: StoredCard
    /// The answer as the API sends it.
    var answer: StoredResponse
}

/// The service's sale and card use cases over one store.
struct SaleDesk: Sendable {
    let store: SQLMembershipStore
    let clock: TestClock
    let cards: CardService
    let sales: ActivationService

    /// The desk with a new signing key, or `keyRing`.
    init(store: SQLMembershipStore, keyRing: KeyRing? = nil) throws {
        self.store = store
        clock = TestClock()
        cards = CardService(
            store: store,
            keyRing: try keyRing ?? KeyRing(signingKey: try Ed25519PrivateKey.generate(), publishedKeys: []),
            clock: clock.wallClock
        )
        sales = ActivationService(ledger: store, cards: cards)
    }

    /// The request a counter sends for `months` sold to the member with `membershipID`.
    static func body(_ membershipID: String, months: Int, amountDZD: Int? = nil) -> ActivationRequest {
        ActivationRequest(membership_id: membershipID, months: months, amount_dzd: amountDZD ?? 300 * months)
    }

    /// The idempotency key the service claims for `body` sent under `name` (the store's view of it).
    static func key(_ name: String, for body: ActivationRequest) throws -> IdempotencyKey {
        IdempotencyKey(scope: "vendor-1", key: name, requestHash: Hex.encode(SHA256.hash(try RequestDecoding.canonical(body))))
    }

    /// Sells at `now` under the key `name`: the service's answer.
    func answer(
        _ body: ActivationRequest,
        vendor: Vendor,
        now: Int64,
        key name: String = UUID().uuidString
    ) async throws -> ActivationService.SaleAnswer {
        clock.set(now)
        return try await sales.sell(ActivationService.SaleRequest(body: body, vendorID: vendor.id, keyScope: "vendor-1", idempotencyKey: name))
    }

    /// Sells `months` to `member` at `now` under a fresh key, and reads back what the sale made.
    @discardableResult
    func sell(_ member: Member, vendor: Vendor, months: Int, now: Int64) async throws -> SaleResult {
        let answer = try await self.answer(Self.body(member.membershipID, months: months), vendor: vendor, now: now)
        guard case .sold(let stored) = answer else { throw StoreFixtureError(message: "a fresh key did not sell: \(answer)") }
        return try await result(of: stored, member: member)
    }

    /// The sale an answer tells of, from the store.
    func result(of answer: StoredResponse, member: Member) async throws -> SaleResult {
        let body = try JSONDecoder().decode(ActivationBody.self, from: Data(answer.bytes))
        guard let period = try await store.periods(memberUUID: member.uuid).first(where: { $0.id.lowercasedText == body.period.id }),
            let card = try await store.card(memberUUID: member.uuid)
        else { throw StoreFixtureError(message: "the sale's period or card is not stored") }
        let coverageEnd = CoverageSchedule.coverageEnd(try await store.periods(memberUUID: member.uuid)) ?? period.endsAt
        return SaleResult(
            member: try await store.member(uuid: member.uuid) ?? member,
            period: period,
            coverageEnd: coverageEnd,
            card: card,
            answer: answer
        )
    }

    /// The member's current card at `now`, as the card routes answer it (kept, with its picture).
    func currentCard(_ member: Member, now: Int64) async throws -> StoredCard {
        clock.set(now)
        return try await cards.currentCard(memberUUID: member.uuid).card
    }
}

extension SQLMembershipStore {
    /// Claims `key` for a request (a new key), or says how to answer a repeat.
    func beginIdempotentRequest(_ key: IdempotencyKey, now: Int64, abandonAfter: Int64) async throws -> IdempotencyDecision {
        let (claimed, _) = try await claim(key, readingLedgerOf: .uuid(UUID()), now: now)
        return claimed ? .proceed : try await idempotentRequest(key, now: now, abandonAfter: abandonAfter)
    }

    func abandonIdempotentRequest(_ key: IdempotencyKey) async throws {
        try await releaseIdempotencyKey(key)
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

/// Random changes of a seeded history, as the summaries' tests drive them: shops, members, and each change one of a
/// sale, a cancellation of a live period, the member's cards revoked.
struct RandomLedger {
    let store: SQLMembershipStore
    let desk: SaleDesk
    var vendors: [Vendor] = []
    var members: [Member] = []
    var generator = SystemRandomNumberGenerator()

    /// `shops` shops and `members` members made at time 1,000.
    init(store: SQLMembershipStore, shops: Int, members: Int) async throws {
        self.store = store
        desk = try SaleDesk(store: store)
        for index in 0..<shops {
            vendors.append(try await store.createVendor(name: "Shop \(index)", category: "boucherie", neighbourhood: "usto", now: 1_000))
        }
        for index in 0..<members { self.members.append(try await store.createMember(Sample.draft(index), now: 1_000).member) }
    }

    /// A member chosen at random.
    mutating func anyMember() -> Member { members.randomElement(using: &generator)! }

    /// Sells 1 to 3 months to `member` at a shop chosen at random.
    mutating func sell(_ member: Member, now: Int64) async throws {
        let vendor = vendors.randomElement(using: &generator)!
        try await desk.sell(member, vendor: vendor, months: Int.random(in: 1...3, using: &generator), now: now)
    }

    /// Cancels one of the member's live periods chosen at random, if any.
    mutating func cancelAnyPeriod(of member: Member, now: Int64) async throws {
        if let period = try await store.periods(memberUUID: member.uuid).filter({ $0.cancelledAt == nil }).randomElement(using: &generator) {
            _ = try await store.cancelPeriod(id: period.id, now: now)
        }
    }

    /// Revokes every card of the member at `now`.
    func revokeCards(of member: Member, now: Int64) async throws {
        _ = try await MemberChangeService(ledger: store, clock: WallClock { now }).revokeCards(memberUUID: member.uuid)
    }
}
