import CardCrypto
import CardServices
import CardToken
import CardWire
import Foundation
import Membership
import PeezAPI
import PeezBasics
import Synchronization
import Testing

@testable import MembershipSQL

/// A card fetched while its member changes is never valid after the change: every card the service answers
/// from a state before a revoking change is refused by a revocation list read after the change answered,
/// whatever the interleaving and whatever the clock. Proven with the service's own use cases (``CardService``,
/// ``MemberChangeService``) on both stores, many rounds of concurrent fetches around each kind of change.
@Suite("Revocation without a race")
struct RevocationRaceTests {
    /// Rounds of each kind of change per store (PEEZ_RACE_ROUNDS overrides).
    static let rounds = ProcessInfo.processInfo.environment["PEEZ_RACE_ROUNDS"].flatMap(Int.init) ?? 60
    /// Card fetches racing each change, as the reproduction fired them.
    static let fetches = 24

    /// The five changes that were seen to leak a card of the state before them.
    enum Change: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case unbind, rebind, twoBindsAtOnce, firstBindAfterRename, cancelAfterRename
        var testDescription: String { rawValue }
    }

    @Test(arguments: StoreKind.available, Change.allCases)
    func noCardOfTheStateBeforeAChangeIsValidAfterIt(kind: StoreKind, change: Change) async throws {
        try await kind.withStore { store in
            let fixture = try await RaceFixture(store: store)
            var leaks: [String] = []
            var oldStateCards = 0
            for round in 1...Self.rounds {
                let outcome = try await fixture.race(change, round: round)
                leaks += outcome.leaks.map { "round \(round): \($0)" }
                oldStateCards += outcome.oldStateCards
            }
            #expect(leaks.isEmpty, "cards of the old state left valid: \(leaks.prefix(5))")
            // The test's reach: how many cards of the state before the change the fetches were answered.
            print("\(kind) \(change): \(Self.rounds) rounds, \(oldStateCards) old-state card(s) answered, \(leaks.count) left valid")
        }
    }

    @Test(arguments: StoreKind.available)
    func aChangeAfterTheClockSteppedBackStillRevokesCardsDatedLaterAndNotTheNextCard(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let clock = Mutex<Int64>(Sample.january31 + 1_000)
            let wallClock = WallClock { clock.withLock { $0 } }
            let fixture = try await RaceFixture(store: store, clock: wallClock)
            let member = try await fixture.newMember(index: 1)
            let before = try await fixture.cards.currentCard(memberUUID: member.uuid).card
            clock.withLock { $0 -= 600 }  // the machine's clock is set ten minutes back
            _ = try await fixture.changes.replaceDeviceKey(memberUUID: member.uuid, with: try RaceFixture.newDeviceKey())
            let revocations = try await fixture.revocationList()
            let old = try fixture.claims(before.token)
            #expect(revocations.revocationReason(for: old) != nil, "a card dated after the change's clock is revoked all the same")
            let after = try await fixture.cards.currentCard(memberUUID: member.uuid).card
            #expect(revocations.revocationReason(for: try fixture.claims(after.token)) == nil, "the card signed after the change is not")
            #expect(after.issuedAt > before.issuedAt && after.issuedAt - clock.withLock { $0 } <= 601)
        }
    }

    @Test(arguments: StoreKind.available)
    func twoChangesInOneSecondEachRevokeTheCardsBeforeThem(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let fixture = try await RaceFixture(store: store, clock: WallClock { Sample.january31 })
            let member = try await fixture.newMember(index: 1)
            let first = try await fixture.cards.currentCard(memberUUID: member.uuid).card
            _ = try await fixture.changes.replaceDeviceKey(memberUUID: member.uuid, with: try RaceFixture.newDeviceKey())
            let second = try await fixture.cards.currentCard(memberUUID: member.uuid).card
            try await fixture.sell(months: 1, to: member)  // the sale's card replaces the second as the member's card
            _ = try await fixture.changes.replaceDeviceKey(memberUUID: member.uuid, with: nil)
            let third = try await fixture.cards.currentCard(memberUUID: member.uuid).card
            let revocations = try await fixture.revocationList()
            #expect(revocations.revocationReason(for: try fixture.claims(first.token)) != nil)
            #expect(
                revocations.revocationReason(for: try fixture.claims(second.token)) != nil,
                "signed in the same second as the change after it, and no longer the member's card then"
            )
            #expect(revocations.revocationReason(for: try fixture.claims(third.token)) == nil)
        }
    }
}

/// A store with the service's card and change use cases over it, a real signing key, and members to race on.
struct RaceFixture: Sendable {
    let store: SQLMembershipStore
    let cards: CardService
    let changes: MemberChangeService
    let vendor: Vendor

    init(store: SQLMembershipStore, clock: WallClock = .system) async throws {
        self.store = store
        self.cards = CardService(store: store, keyRing: try KeyRing(signingKey: try Ed25519PrivateKey.generate(), publishedKeys: []), clock: clock)
        self.changes = MemberChangeService(ledger: store, clock: clock)
        self.vendor = try await store.createVendor(name: "A", category: "boucherie", neighbourhood: "usto", now: clock())
    }

    static func newDeviceKey() throws -> DeviceKey {
        try DeviceKey(rawRepresentation: try Ed25519PrivateKey.generate().publicKey.rawRepresentation)
    }

    /// A member with a month sold.
    func newMember(index: Int) async throws -> Member {
        let member = try await store.createMember(Sample.draft(index), now: cards.now()).member
        try await sell(months: 1, to: member)
        return member
    }

    /// Sells `months` to `member` as a vendor's counter does.
    func sell(months: Int, to member: Member) async throws {
        let body = ActivationRequest(membership_id: member.membershipID, months: months, amount_dzd: 300 * months)
        _ = try await ActivationService(ledger: store, cards: cards).sell(
            ActivationService.SaleRequest(body: body, vendorID: vendor.id, keyScope: "race", idempotencyKey: UUID().uuidString)
        )
    }

    /// The revocation list as a counter that synced now holds it.
    func revocationList() async throws -> RevocationList {
        try RevocationListDocument(try await store.revocations()).revocationList()
    }

    /// The claims of a token the service signed.
    func claims(_ token: String) throws -> CardClaims {
        try #require(CardVerifier(trustedKeys: cards.keyRing.trustedKeys).verify(token, now: cards.now()).claims)
    }

    struct Outcome {
        var leaks: [String]
        var oldStateCards: Int
    }

    /// One round: a member brought to the state before `change`, then the change racing concurrent card
    /// fetches; every fetched card that does not show the state after the change must be revoked.
    func race(_ change: RevocationRaceTests.Change, round: Int) async throws -> Outcome {
        let member = try await newMember(index: round)
        let uuid = member.uuid
        switch change {
        case .unbind, .rebind, .twoBindsAtOnce:
            _ = try await changes.replaceDeviceKey(memberUUID: uuid, with: try Self.newDeviceKey())
        case .firstBindAfterRename:
            _ = try await store.updateMember(uuid: uuid, patch: MemberPatch(name: "Renamed \(round)"), now: cards.now())
        case .cancelAfterRename:
            try await sell(months: 3, to: member)
            _ = try await store.updateMember(uuid: uuid, patch: MemberPatch(name: "Renamed \(round)"), now: cards.now())
        }
        let newKeys = [try Self.newDeviceKey(), try Self.newDeviceKey()]
        let cancelled = try await store.periods(memberUUID: uuid).last
        let changes = self.changes
        let cards = self.cards

        // The fetches and the change start together.
        let fetched = try await withThrowingTaskGroup(of: [StoredCard].self) { group in
            for index in 0..<RevocationRaceTests.fetches {
                group.addTask {
                    if index % 3 == 1 { await Task.yield() }
                    return [try await cards.currentCard(memberUUID: uuid).card]
                }
                if index == RevocationRaceTests.fetches / 2 {
                    group.addTask {
                        switch change {
                        case .unbind: _ = try await changes.replaceDeviceKey(memberUUID: uuid, with: nil)
                        case .rebind, .firstBindAfterRename: _ = try await changes.replaceDeviceKey(memberUUID: uuid, with: newKeys[0])
                        case .twoBindsAtOnce:
                            async let first = changes.replaceDeviceKey(memberUUID: uuid, with: newKeys[0])
                            async let second = changes.replaceDeviceKey(memberUUID: uuid, with: newKeys[1])
                            _ = try await (first, second)
                        case .cancelAfterRename: _ = try await changes.cancelPeriod(id: try #require(cancelled).id)
                        }
                        return []
                    }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }

        // The state after the change, and the list a counter syncing now would get.
        let ledger = try #require(try await store.memberLedger(of: .uuid(uuid)))
        let revocations = try await revocationList()
        var outcome = Outcome(leaks: [], oldStateCards: 0)
        for card in Set(fetched.map(\.token)) {
            let claims = try self.claims(card)
            let showsNewState =
                claims.deviceKey == ledger.head.member.deviceKey && claims.name == CardClaims.fittingName(ledger.head.member.name)
                && claims.expiresAt == (ledger.head.coverageEnd ?? claims.issuedAt)
            if showsNewState { continue }
            outcome.oldStateCards += 1
            if revocations.revocationReason(for: claims) == nil {
                outcome.leaks.append(
                    "\(change) card \(claims.tokenID.hex) iat \(claims.issuedAt) not revoked (\(revocations.revokedBefore[claims.subject].map(String.init) ?? "no member entry"))"
                )
            }
        }
        return outcome
    }
}
