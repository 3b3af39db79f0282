import Foundation
import PeezAPI
import Soak
import Testing

/// The soak checker's rules for Apple Wallet's outbox: an update left waiting, a change to a registered device's
/// pass pushed only before it or refused, a push to a token no device registered, and a pass showing another name:
/// each found in a history written by hand, and nothing in the same history put right.
@Suite("Soak checker: Apple Wallet")
struct LedgerCheckerWalletTests {
    typealias Base = LedgerCheckerTests
    static let token = "a1a1" + String(repeating: "0", count: 60)

    static func registration(_ outcome: Outcome = .ok) -> HistoryEntry {
        var entry = HistoryEntry(client: "phone-1", kind: .walletRegister, invoked: 3, completed: 4, outcome: outcome, member: Base.member)
        entry.device = "phone-1"
        entry.value = token
        return entry
    }

    /// What the run read at its end: the pushes APNs took for the phone's token (when, APNs's status), the updates
    /// waiting, and the name the phone's pass shows.
    static func wallet(pushes: [(at: Double, status: Int)], waiting: Int = 0, shown: String? = "Member 0") -> FinalReads {
        FinalReads(
            wallet: .init(
                pushes: pushes.map { .init(token: token, at: $0.at, status: $0.status) },
                waiting: waiting,
                phones: [.init(device: "phone-1", member: Base.member, memberName: "Member 0", passName: shown)]
            )
        )
    }

    static func invariants(_ history: [HistoryEntry], _ final: FinalReads) throws -> [String] {
        LedgerChecker(history: Base.answeredSales + history, ledger: try Base.ledger([Base.first, Base.second]), final: final)
            .check().violations.map(\.invariant)
    }

    @Test func aChangeNotPushedAPushToAStrangerOrAStalePassIsFound() throws {
        let history = [Self.registration(), LedgerCheckerChangesTests.change(.rename, "Member 0", at: 10)]
        // Refused once (429), then accepted after the change: nothing wrong.
        #expect(try Self.invariants(history, Self.wallet(pushes: [(10.5, 429), (11.2, 200)])).isEmpty)
        #expect(
            try Self.invariants(history, Self.wallet(pushes: [(5, 200), (10.5, 429)])) == [
                "every change to a pass is pushed to each device registered for it"
            ]
        )
        #expect(try Self.invariants(history, Self.wallet(pushes: [(11.2, 200)], waiting: 1)) == ["every Wallet update is pushed"])
        #expect(
            try Self.invariants(history, Self.wallet(pushes: [(11.2, 200)], shown: "Old name")) == [
                "the pass a phone fetches shows the member as the ledger has them"
            ]
        )
        var stranger = Self.wallet(pushes: [(11.2, 200)])
        stranger.wallet?.pushes.append(.init(token: "a1a1ffff", at: 11, status: 200))
        #expect(try Self.invariants(history, stranger) == ["a push goes only to a registered device"])
        // A device that may have unregistered, or whose registration's answer was lost, is owed nothing.
        var removed = HistoryEntry(client: "phone-1", kind: .walletUnregister, invoked: 12, completed: 13, outcome: .unknown, member: Base.member)
        removed.device = "phone-1"
        #expect(try Self.invariants(history + [removed], Self.wallet(pushes: [])).isEmpty)
        // A phone holding two members' passes that removes the other one is still owed the pushes of this one.
        var removedOther = removed
        removedOther.member = "00000000-0000-0000-0000-00000000000f"
        #expect(
            try Self.invariants(history + [removedOther], Self.wallet(pushes: [])) == [
                "every change to a pass is pushed to each device registered for it"
            ]
        )
        #expect(try Self.invariants([Self.registration(.unknown), history[1]], Self.wallet(pushes: [])).isEmpty)
    }
}
