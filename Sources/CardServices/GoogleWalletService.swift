public import Foundation
public import Membership
public import WalletPass

/// Google Wallet for members' cards: the "Save to Google Wallet" link the app opens, and the object each later
/// change updates (through the outbox the push worker drains).
public struct GoogleWalletService: Sendable {
    public let cards: CardService
    public let account: GoogleServiceAccount
    /// The issuer id from the Google Pay & Wallet console.
    public let issuerID: String
    /// The web origins the save button may appear on.
    public let origins: [String]
    /// The members' ledgers and their Wallet records.
    let store: any LedgerStore & WalletStore

    public init(
        cards: CardService,
        store: any LedgerStore & WalletStore,
        account: GoogleServiceAccount,
        issuerID: String,
        origins: [String]
    ) {
        self.cards = cards
        self.store = store
        self.account = account
        self.issuerID = issuerID
        self.origins = origins
    }

    /// The save link of `memberUUID`'s card, recorded so that its later changes are sent as updates. A member
    /// bound to a phone gets none (a Wallet barcode is static).
    public func saveURL(memberUUID: UUID) async throws -> String {
        guard let head = try await store.ledgerHead(of: .uuid(memberUUID)) else {
            throw MembershipError(.notFound, "No member has uuid \(memberUUID.lowercasedText).")
        }
        if head.member.deviceKey != nil {
            throw MembershipError(
                .conflict,
                "This member's cards are bound to their phone (a device key is registered): a Wallet pass shows a static barcode, which counters refuse for a bound card. Remove the device key to use Wallet."
            )
        }
        let card = try await self.card(head)
        try await store.recordGoogleWalletObject(member: memberUUID, shownVersion: head.version, now: cards.now())
        return try card.saveURL(account: account, origins: origins, now: cards.now())
    }

    /// The object as it should now be, for an update.
    public func object(memberUUID: UUID) async throws -> GoogleWalletCard? {
        guard let head = try await store.ledgerHead(of: .uuid(memberUUID)) else { return nil }
        return try await card(head)
    }

    /// The object for the member whose ledger `head` is (one read), with their current card.
    private func card(_ head: LedgerHead) async throws -> GoogleWalletCard {
        let member = head.member
        let card = try await cards.currentToken(memberUUID: member.uuid)
        return GoogleWalletCard(
            issuerID: issuerID,
            memberUUID: member.uuid.lowercasedText,
            memberName: member.name,
            membershipID: member.membershipID,
            cardToken: card.token,
            coverageEnd: card.coverageEnd,
            active: !(card.coverageEnd == nil && head.lastPeriodSeq > 0)
        )
    }
}
