import Foundation
import PeezAPI
import Soak
import Testing

/// The soak checker's rules for Google Wallet's outbox: an update left waiting, a change to a saved card sent only
/// before it or refused, an object no link was asked for, and an object showing another name: each found in a
/// history written by hand, and nothing in the same history put right.
@Suite("Soak checker: Google Wallet")
struct LedgerCheckerGoogleWalletTests {
    typealias Base = LedgerCheckerTests

    static func save(_ outcome: Outcome = .ok) -> HistoryEntry {
        HistoryEntry(client: "android-1", kind: .googleSave, invoked: 3, completed: 4, outcome: outcome, member: Base.member)
    }

    /// What the run read at its end: the updates Google took of the member's object (when, Google's status), the
    /// updates waiting, and what the object shows beside the member as the ledger has them.
    static func google(
        updates: [(at: Double, status: Int)],
        waiting: Int = 0,
        shown: String = "Member 0 until end",
        member: String = Base.member
    )
        -> FinalReads
    {
        FinalReads(
            googleWallet: .init(
                waiting: waiting,
                objects: [.init(member: member, shown: shown, ledger: "Member 0 until end")],
                updates: updates.map { .init(member: Base.member, at: $0.at, status: $0.status) }
            )
        )
    }

    static func invariants(_ history: [HistoryEntry], _ final: FinalReads) throws -> [String] {
        LedgerChecker(history: Base.answeredSales + history, ledger: try Base.ledger([Base.first, Base.second]), final: final)
            .check().violations.map(\.invariant)
    }

    @Test func aChangeNotSentAStrangersObjectOrAStaleObjectIsFound() throws {
        let history = [Self.save(), LedgerCheckerChangesTests.change(.rename, "Member 0", at: 10)]
        // Refused once (503), then accepted after the change: nothing wrong.
        #expect(try Self.invariants(history, Self.google(updates: [(10.5, 503), (11.2, 200)])).isEmpty)
        #expect(
            try Self.invariants(history, Self.google(updates: [(5, 200), (10.5, 503)])) == ["every change to a saved card is sent to Google"]
        )
        #expect(try Self.invariants(history, Self.google(updates: [(11.2, 200)], waiting: 1)) == ["every Google Wallet update is sent"])
        #expect(
            try Self.invariants(history, Self.google(updates: [(11.2, 200)], shown: "Old name until end")) == [
                "the object Google holds shows the member as the ledger has them"
            ]
        )
        #expect(
            try Self.invariants(history, Self.google(updates: [(11.2, 200)], member: "00000000-0000-0000-0000-00000000000f")) == [
                "Google holds only objects whose link was asked for"
            ]
        )
        // A save whose answer was lost is owed nothing.
        #expect(try Self.invariants([Self.save(.unknown), history[1]], Self.google(updates: [])).isEmpty)
    }
}
