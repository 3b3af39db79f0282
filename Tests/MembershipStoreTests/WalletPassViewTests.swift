import Foundation
import Membership
import MembershipSQL
import Testing

/// What a Wallet pass shows besides the card comes from one read, on both stores: the member's ledger head and
/// the pass's token hash, stamp and reminder.
@Suite("Wallet pass view")
struct WalletPassViewTests {
    @Test(arguments: StoreKind.available)
    func theViewHoldsTheHeadAndThePassAsIssuedStampedAndReminded(kind: StoreKind) async throws {
        try await kind.withStore { store in
            #expect(try await store.walletPassView(member: UUID()) == nil, "an unknown member")
            let member = try await store.createMember(Sample.draft(1), now: 1_000).member
            let before = try #require(try await store.walletPassView(member: member.uuid))
            #expect(before.head.member == member && before.tokenHash == nil && before.lastChange == nil && before.reminder == nil)

            _ = try await store.issueWalletPass(member: member.uuid, token: "t", tokenHash: "h", now: 2_000)
            _ = try await store.registerWalletDevice("phone", member: member.uuid, pushToken: "p", now: 2_000)
            let reminder = WalletReminder(threshold: "7d", coverageEnd: 9_000)
            #expect(try await store.putReminderOnWalletPass(member: member.uuid, reminder: reminder, now: 3_000))
            let after = try #require(try await store.walletPassView(member: member.uuid))
            #expect(after.tokenHash == "h" && after.reminder == reminder)
            #expect(after.lastChange == (try await store.walletPassLastChange(member: member.uuid)) && after.lastChange != nil)
            #expect(after.head == (try await store.ledgerHead(of: .uuid(member.uuid))))
        }
    }
}
