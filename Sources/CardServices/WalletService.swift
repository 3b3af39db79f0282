import CardCrypto
public import Foundation
public import Membership
import PeezBasics
public import WalletPass

/// Apple Wallet for members' cards: the pass the backend hands to the app, and the web service Wallet calls
/// to register for updates and fetch the latest pass. A pass carries the member's current card token as its
/// QR code, so it stays what a counter accepts.
public struct WalletService: Sendable {
    public let cards: CardService
    public let identity: PassSigningIdentity
    /// Where Wallet reaches the web service (written into every pass).
    public let webServiceURL: String
    /// The members, their ledgers and their Wallet records.
    let store: any MemberStore & LedgerStore & WalletStore

    public init(cards: CardService, store: any MemberStore & LedgerStore & WalletStore, identity: PassSigningIdentity, webServiceURL: String) {
        self.cards = cards
        self.store = store
        self.identity = identity
        self.webServiceURL = webServiceURL
    }

    /// A signed pass and when what it shows last changed (its `Last-Modified`).
    public struct SignedPass: Sendable {
        public var archive: [UInt8]
        public var lastModified: Int64
    }

    /// The pass of `memberUUID` for the app to add to Wallet. Its authentication token is the one the pass was
    /// first issued with (Apple: a pass's token does not change), so a pass already in Wallet, on this device or
    /// another, keeps being updated after the app downloads it again. A member whose cards are bound to a phone
    /// gets none: a Wallet barcode is static, and counters refuse a bound card shown bare.
    public func issuePass(memberUUID: UUID) async throws -> SignedPass {
        let member = try await member(memberUUID)
        if member.deviceKey != nil {
            throw MembershipError(
                .conflict,
                "This member's cards are bound to their phone (a device key is registered): a Wallet pass shows a static barcode, which counters refuse for a bound card. Remove the device key to use Wallet."
            )
        }
        let fresh = Self.newToken()
        let token = try await store.issueWalletPass(member: memberUUID, token: fresh, tokenHash: Self.hash(fresh), now: cards.now())
        return try await build(member, token: token)
    }

    /// The latest pass for Wallet, which authenticated with `token`; nil when the token is not the pass's.
    public func latestPass(serial: UUID, token: String) async throws -> SignedPass? {
        guard try await authenticates(serial: serial, token: token) else { return nil }
        return try await build(try await member(serial), token: token)
    }

    /// Whether `token` is the authentication token of `serial`'s pass (compared by hash, in constant time).
    public func authenticates(serial: UUID, token: String) async throws -> Bool {
        guard let stored = try await store.walletPassTokenHash(member: serial) else { return false }
        return Self.constantTimeEquals(Array(Self.hash(token).utf8), Array(stored.utf8))
    }

    /// When what `serial`'s pass shows last changed, nil for an unknown member.
    public func lastChange(serial: UUID) async throws -> Int64? {
        try await store.walletPassLastChange(member: serial)
    }

    private func member(_ uuid: UUID) async throws -> Member {
        guard let member = try await store.member(uuid: uuid) else {
            throw MembershipError(.notFound, "No member has uuid \(uuid.lowercasedText).")
        }
        return member
    }

    private func build(_ member: Member, token: String) async throws -> SignedPass {
        let card = try await cards.currentToken(memberUUID: member.uuid)
        let head = try await store.ledgerHead(of: .uuid(member.uuid))
        let now = cards.now()
        // A reminder is shown while it is about the coverage the card shows (a renewal makes it stale).
        let reminder = try await store.walletPassReminder(member: member.uuid).flatMap { $0.coverageEnd == card.coverageEnd ? $0.threshold : nil }
        let pass = MembershipPass(
            serialNumber: member.uuid.lowercasedText,
            memberName: member.name,
            membershipID: member.membershipID,
            // A pass installed before the member's cards were bound to the phone: its barcode would be refused
            // at every counter, so it shows none and says to show the card from the app.
            cardToken: member.deviceKey == nil ? card.token : nil,
            coverageEnd: card.coverageEnd,
            // Every period the member bought was cancelled: the card stands for nothing paid.
            voided: card.coverageEnd == nil && (head?.lastPeriodSeq ?? 0) > 0,
            authenticationToken: token,
            webServiceURL: webServiceURL,
            reminder: reminder
        )
        let lastModified = try await store.walletPassLastChange(member: member.uuid) ?? member.createdAt
        return SignedPass(archive: try PassPackage.build(pass, identity: identity, now: now), lastModified: lastModified)
    }

    /// 32 random bytes in base64url: 43 characters (Wallet asks for 16 or more).
    static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    static func hash(_ token: String) -> String { Hex.encode(SHA256.hash(Array(token.utf8))) }

    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
