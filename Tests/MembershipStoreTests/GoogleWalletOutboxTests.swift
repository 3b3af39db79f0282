import Foundation
import Membership
import MembershipSQL
import Testing

/// Google Wallet's outbox on both stores: an object is updated for each change after the state its save link
/// showed, even a change that came between the read the link was made from and the link's record.
@Suite("Google Wallet outbox")
struct GoogleWalletOutboxTests {
    @Test(arguments: StoreKind.available)
    func aChangeBetweenTheLinksReadAndItsRecordIsSentAndTheShownStateIsNot(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let shown = try await store.createMember(Sample.draft(1), now: 1_000).member
            let current = try await store.createMember(Sample.draft(2), now: 1_000).member
            let linkRead = try #require(try await store.ledgerHead(of: .uuid(shown.uuid)))
            // A new name lands after the link was made, before it is recorded.
            _ = try await store.updateMember(uuid: shown.uuid, patch: MemberPatch(name: "Amina Khelifa"), now: 1_500)
            let renamed = try #require(try await store.ledgerHead(of: .uuid(shown.uuid)))
            #expect(renamed.version > linkRead.version)
            try await store.recordGoogleWalletObject(member: shown.uuid, shownVersion: linkRead.version, now: 2_000)
            let head = try #require(try await store.ledgerHead(of: .uuid(current.uuid)))
            try await store.recordGoogleWalletObject(member: current.uuid, shownVersion: head.version, now: 2_000)

            let due = try await store.leaseGoogleWalletUpdates(owner: "worker", now: 2_000, leaseSeconds: 60, limit: 10)
            #expect(due.map(\.member) == [shown.uuid] && due.first?.version == renamed.version, "only the renamed member's object: \(due)")
            try await store.settleGoogleWalletUpdate(due[0], owner: "worker", retryAt: nil, error: nil, now: 2_001)
            #expect(try await store.leaseGoogleWalletUpdates(owner: "worker", now: 2_002, leaseSeconds: 60, limit: 10).isEmpty)
        }
    }
}
