import Foundation
import PeezAPI
import Soak
import Testing

/// The soak checker finds each kind of broken guarantee in a history and the ledger it left (and nothing in a
/// clean one): the runs under faults are only as good as the checker that reads them.
@Suite("Soak checker")
struct LedgerCheckerTests {
    static let member = "6f1c0b36-6b0e-4b8e-9d7e-0c9b7f1d2a01"
    static let shop = "1b2c3d4e-0000-4000-8000-000000000001"

    static func period(_ id: String, months: Int, bought: String, starts: String, ends: String, status: String = "active") -> [String: Any] {
        [
            "id": id, "member_uuid": member, "months": months, "amount_dzd": 300 * months, "source": "vendor", "vendor_id": shop,
            "status": status, "purchased_at": bought, "starts_at": starts, "ends_at": ends, "cancelled_at": NSNull(),
        ]
    }

    /// Two sales laid end to end: one month bought 10 January, two months bought 20 January.
    static var first: [String: Any] {
        period("p1", months: 1, bought: "2026-01-10T10:00:00+01:00", starts: "2026-01-10T10:00:00+01:00", ends: "2026-02-10T10:00:00+01:00")
    }
    static var second: [String: Any] {
        period(
            "p2",
            months: 2,
            bought: "2026-01-20T10:00:00+01:00",
            starts: "2026-02-10T10:00:00+01:00",
            ends: "2026-04-10T10:00:00+01:00"
        )
    }

    /// The ledger of one member whose periods, given in purchase order, the API lists newest first.
    static func ledger(_ periods: [[String: Any]], endsAt: String? = "2026-04-10T10:00:00+01:00") throws -> [SubscriptionBody] {
        let body: [String: Any] = [
            "member_uuid": member, "membership_id": "PEEZ-20260110-00001",
            "coverage": ["status": "active", "ends_at": endsAt.map { $0 as Any } ?? NSNull(), "days_left": 30],
            "periods": Array(periods.reversed()),
        ]
        return [try JSONDecoder().decode(SubscriptionBody.self, from: JSONSerialization.data(withJSONObject: body))]
    }

    static func sale(_ outcome: Outcome, period: String?, months: Int, key: String) -> HistoryEntry {
        HistoryEntry(
            client: "shop-0",
            kind: .sale,
            invoked: 1,
            completed: 2,
            outcome: outcome,
            member: member,
            months: months,
            vendor: shop,
            idempotencyKey: key,
            period: period
        )
    }

    /// A cancellation as the API answers it: the period's member, and the cards it revoked.
    static func cancellation(_ outcome: Outcome, of period: String) -> HistoryEntry {
        var cancellation = HistoryEntry(
            client: "team",
            kind: .cancellation,
            invoked: 3,
            completed: 4,
            outcome: outcome,
            member: member,
            period: period
        )
        cancellation.revokedBefore = "2026-01-21T10:00:00+01:00"
        return cancellation
    }

    static let answeredSales = [sale(.ok, period: "p1", months: 1, key: "k1"), sale(.ok, period: "p2", months: 2, key: "k2")]

    static func invariants(_ history: [HistoryEntry], _ ledger: [SubscriptionBody]) -> [String] {
        LedgerChecker(history: history, ledger: ledger).check().violations.map(\.invariant)
    }

    @Test func aCleanHistoryHasNoViolation() throws {
        let (violations, checks, _) = LedgerChecker(history: Self.answeredSales, ledger: try Self.ledger([Self.first, Self.second])).check()
        #expect(violations.isEmpty && checks >= 5, "\(violations.map(\.message))")
    }

    @Test func anAnsweredSaleMissingFromTheLedgerIsFound() throws {
        let ledger = try Self.ledger([Self.first], endsAt: "2026-02-10T10:00:00+01:00")
        #expect(Self.invariants(Self.answeredSales, ledger) == ["acknowledged sale stored exactly once"])
    }

    @Test func aSaleStoredTwiceIsFoundUnlessALostAnswerExplainsIt() throws {
        let again = Self.period(
            "p3",
            months: 2,
            bought: "2026-01-20T10:00:01+01:00",
            starts: "2026-04-10T10:00:00+01:00",
            ends: "2026-06-10T10:00:00+01:00"
        )
        let ledger = try Self.ledger([Self.first, Self.second, again], endsAt: "2026-06-10T10:00:00+01:00")
        #expect(Self.invariants(Self.answeredSales, ledger) == ["no sale stored that no invocation explains"])
        let lost = Self.sale(.unknown, period: nil, months: 2, key: "k3")
        #expect(Self.invariants(Self.answeredSales + [lost], ledger).isEmpty, "a sale whose answer was lost may be stored once")
        #expect(LedgerChecker(history: Self.answeredSales + [lost], ledger: ledger).check().lostAnswersStored == 1)
        let refused = Self.sale(.refused, period: nil, months: 2, key: "k3")
        #expect(Self.invariants(Self.answeredSales + [refused], ledger) == ["no sale stored that no invocation explains"])
    }

    @Test func anAnswerThatDoesNotReadAsTheAPIsBodyIsFound() throws {
        var unread = Self.cancellation(.ok, of: "p2")
        unread.revokedBefore = nil
        var cancelled = Self.second
        cancelled["status"] = "cancelled"
        let ledger = try Self.ledger([Self.first, cancelled], endsAt: "2026-02-10T10:00:00+01:00")
        #expect(Self.invariants(Self.answeredSales + [unread], ledger) == ["answers read"])
        let fetch = HistoryEntry(client: "app-0", kind: .cardFetch, invoked: 5, completed: 6, outcome: .ok, member: Self.member)
        #expect(Self.invariants(Self.answeredSales + [Self.cancellation(.ok, of: "p2"), fetch], ledger) == ["answers read"])
    }

    @Test func anAnsweredCancellationNotAppliedAndACancellationNeverSentAreFound() throws {
        let history = Self.answeredSales + [Self.cancellation(.ok, of: "p2")]
        #expect(Self.invariants(history, try Self.ledger([Self.first, Self.second])) == ["answered cancellation applied"])

        var cancelled = Self.second
        cancelled["status"] = "cancelled"
        let ledger = try Self.ledger([Self.first, cancelled], endsAt: "2026-02-10T10:00:00+01:00")
        #expect(Self.invariants(history, ledger).isEmpty)
        #expect(Self.invariants(Self.answeredSales, ledger) == ["no cancellation stored that no invocation explains"])
    }

    @Test func periodsThatOverlapOrLeaveAGapAndAWrongPaidTimeAreFound() throws {
        var overlapping = Self.second
        overlapping["starts_at"] = "2026-01-20T10:00:00+01:00"
        overlapping["ends_at"] = "2026-03-20T10:00:00+01:00"
        #expect(
            Self.invariants(Self.answeredSales, try Self.ledger([Self.first, overlapping], endsAt: "2026-03-20T10:00:00+01:00"))
                == ["periods laid end to end"]
        )
        #expect(
            Self.invariants(Self.answeredSales, try Self.ledger([Self.first, Self.second], endsAt: "2026-04-11T10:00:00+01:00"))
                == ["paid time ends with the last live period"]
        )
    }

    @Test func aStaleCardIsFoundWhenServedByTheChangingInstanceOrLateOrWhenItStillVerifies() throws {
        var cancellation = Self.cancellation(.ok, of: "p2")
        cancellation.instance = 0
        var cancelled = Self.second
        cancelled["status"] = "cancelled"
        let ledger = try Self.ledger([Self.first, cancelled], endsAt: "2026-02-10T10:00:00+01:00")
        func fetch(at time: Double, from instance: Int, issued: String) -> HistoryEntry {
            var fetch = HistoryEntry(client: "app-0", kind: .cardFetch, invoked: time, completed: time + 0.01, outcome: .ok, member: Self.member)
            fetch.instance = instance
            fetch.tokenID = "0011223344556677"
            fetch.issuedAt = issued
            return fetch
        }
        func invariants(_ fetch: HistoryEntry, verdict: String = "revoked") -> [String] {
            LedgerChecker(history: Self.answeredSales + [cancellation, fetch], ledger: ledger, verdicts: ["0011223344556677": verdict])
                .check().violations.map(\.invariant)
        }
        let old = "2026-01-20T10:00:00+01:00"
        // The cancellation was answered at 4 s: a fetch begun before may get the old card, one begun after may not,
        // but from another instance within the propagation bound (whose card the change revoked all the same).
        #expect(invariants(fetch(at: 3.5, from: 0, issued: old)).isEmpty)
        #expect(invariants(fetch(at: 4.5, from: 0, issued: "2026-01-21T10:00:00+01:00")).isEmpty)
        #expect(invariants(fetch(at: 4.5, from: 1, issued: old)).isEmpty)
        #expect(invariants(fetch(at: 4.5, from: 0, issued: old)) == ["no card answered that a completed revoking change revoked"])
        #expect(invariants(fetch(at: 6, from: 1, issued: old)) == ["no card answered that a completed revoking change revoked"])
        #expect(
            invariants(fetch(at: 4.5, from: 1, issued: old), verdict: "valid")
                == ["a card answered from a state a completed revoking change left is invalid afterwards"]
        )
    }
}
