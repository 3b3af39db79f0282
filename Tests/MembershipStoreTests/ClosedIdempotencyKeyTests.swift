import Foundation
import Membership
import MembershipSQL
import Testing

/// A request refused because its credential was withdrawn closes its idempotency key, on both stores: a copy of
/// it still on its way (let through before the withdrawal) is then refused too, one already under way is waited
/// for, and a withdrawn credential cannot fill the table with closed keys.
@Suite("Closed idempotency keys")
struct ClosedIdempotencyKeyTests {
    static func key(_ name: String, scope: String = "counter-1") -> IdempotencyKey {
        IdempotencyKey(scope: scope, key: name, requestHash: "hash-of-\(name)")
    }

    @Test(arguments: StoreKind.available)
    func aRefusalClosesTheKeySoACopyLetThroughEarlierSellsNothingAndACopyUnderWayIsWaitedFor(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let member = MemberReference.uuid(try await store.createMember(Sample.draft(1), now: 1_000).member.uuid)
            // Refused first: a copy let through before the withdrawal finds the key closed.
            #expect(try await store.closeIdempotencyKey(Self.key("a"), now: 2_000, abandonAfter: 60) == .refused)
            #expect(try await store.claim(Self.key("a"), readingLedgerOf: member, now: 2_001).claimed == false)
            #expect(try await store.idempotentRequest(Self.key("a"), now: 2_001, abandonAfter: 60) == .refused)
            #expect(try await store.closeIdempotencyKey(Self.key("a"), now: 2_002, abandonAfter: 60) == .refused, "closed stays closed")
            // Another request under the key is still told so.
            let other = IdempotencyKey(scope: "counter-1", key: "a", requestHash: "another")
            #expect(try await store.idempotentRequest(other, now: 2_003, abandonAfter: 60) == .mismatch)

            // A copy under way when the refusal comes: waited for (asked again, it is told of that sale).
            #expect(try await store.claim(Self.key("b"), readingLedgerOf: member, now: 2_000).claimed)
            #expect(try await store.closeIdempotencyKey(Self.key("b"), now: 2_010, abandonAfter: 60) == .inFlight)
            // Its process died: nothing was carried out, and the key is closed.
            #expect(try await store.closeIdempotencyKey(Self.key("b"), now: 2_100, abandonAfter: 60) == .refused)
            #expect(try await store.idempotentRequest(Self.key("b"), now: 2_101, abandonAfter: 60) == .refused)
        }
    }

    @Test(arguments: StoreKind.available)
    func aWithdrawnCredentialClosesAtMostAHundredKeys(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let member = MemberReference.uuid(try await store.createMember(Sample.draft(1), now: 1_000).member.uuid)
            for index in 0..<100 {
                #expect(try await store.closeIdempotencyKey(Self.key("k\(index)"), now: 2_000, abandonAfter: 60) == .refused)
            }
            #expect(try await store.closeIdempotencyKey(Self.key("k100"), now: 2_000, abandonAfter: 60) == .refused)
            #expect(try await store.claim(Self.key("k100"), readingLedgerOf: member, now: 2_001).claimed, "the 101st is refused, not kept")
            #expect(try await store.claim(Self.key("k99"), readingLedgerOf: member, now: 2_001).claimed == false)
            // Another credential's keys are its own.
            #expect(try await store.closeIdempotencyKey(Self.key("k0", scope: "counter-2"), now: 2_000, abandonAfter: 60) == .refused)
            #expect(try await store.claim(Self.key("k1", scope: "counter-2"), readingLedgerOf: member, now: 2_001).claimed)
        }
    }
}
