import CardServices
import CardToken
import Foundation
import Membership
import MembershipSQL
import Testing

/// `CardService.verify` keeps the revocation list parsed between verifications and reads only what changed: a
/// card revoked through another instance, after this one verified it and kept the list, is refused at its next
/// verification, every round.
@Suite("Revocation list kept between verifications")
struct LiveRevocationListTests {
    @Test func aCardRevokedThroughAnotherInstanceIsRefusedAtItsNextVerification() async throws {
        try await StoreKind.withPostgresInstances(2) { stores in
            let revoking = try await RaceFixture(store: stores[1])
            let verifying = CardService(store: stores[0], keyRing: revoking.cards.keyRing, clock: .system)
            for round in 0..<25 {
                let member = try await revoking.newMember(index: round)
                let token = try await verifying.currentCard(memberUUID: member.uuid).card.token
                #expect(try await verifying.verify(token).verdict == .valid, "round \(round): the card before its revocation")
                _ = try await revoking.changes.revokeCards(memberUUID: member.uuid)
                #expect(try await verifying.verify(token).verdict == .revoked, "round \(round): the list kept was not brought up to date")
            }
        }
    }

    @Test(arguments: StoreKind.available)
    func verificationsRacingRevocationsNeverAcceptACardRevokedBeforeThem(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let fixture = try await RaceFixture(store: store)
            var members: [Member] = []
            for index in 0..<8 { members.append(try await fixture.newMember(index: index)) }
            var tokens: [String] = []
            for member in members { tokens.append(try await fixture.cards.currentCard(memberUUID: member.uuid).card.token) }
            let (cards, changes, cardTokens, memberList) = (fixture.cards, fixture.changes, tokens, members)
            // Each member's cards revoked while verifications of every card run beside it; once a revocation has
            // returned, no verification that starts after it may accept that member's card.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, member) in memberList.enumerated() {
                    group.addTask {
                        _ = try await changes.revokeCards(memberUUID: member.uuid)
                        #expect(try await cards.verify(cardTokens[index]).verdict == .revoked)
                    }
                    for token in cardTokens { group.addTask { _ = try await cards.verify(token) } }
                }
                try await group.waitForAll()
            }
            for token in cardTokens { #expect(try await cards.verify(token).verdict == .revoked) }
        }
    }
}
