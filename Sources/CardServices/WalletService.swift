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
    /// The members' Wallet passes and what they show.
    let store: any WalletStore

    public init(cards: CardService, store: any WalletStore, identity: PassSigningIdentity, webServiceURL: String) {
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
        let member = try await view(memberUUID).head.member
        if member.deviceKey != nil {
            throw MembershipError(
                .conflict,
                "This member's cards are bound to their phone (a device key is registered): a Wallet pass shows a static barcode, which counters refuse for a bound card. Remove the device key to use Wallet."
            )
        }
        let fresh = Self.newToken()
        let token = try await store.issueWalletPass(member: memberUUID, token: fresh, tokenHash: Self.hash(fresh), now: cards.now())
        return try await build(try await view(memberUUID), token: token)
    }

    /// What Wallet is answered when it asks for the latest pass.
    public enum LatestPass: Sendable {
        /// The token is not the pass's (or there is no such pass).
        case unauthenticated
        /// Nothing the pass shows changed since the time Wallet sent: its stamp.
        case notModified(Int64)
        case pass(SignedPass)
    }

    /// The latest pass for Wallet, which authenticated with `token`, unless nothing changed since
    /// `ifModifiedSince`. The member, the token's hash, the stamp and what the pass shows come from one read,
    /// the card from memory or one more.
    public func latestPass(serial: UUID, token: String, ifModifiedSince: Int64? = nil) async throws -> LatestPass {
        guard let view = try await store.walletPassView(member: serial), Self.authenticates(token, hash: view.tokenHash) else {
            return .unauthenticated
        }
        if let since = ifModifiedSince, let changed = view.lastChange, changed <= since { return .notModified(changed) }
        return .pass(try await build(view, token: token))
    }

    /// Whether `token` is the authentication token of `serial`'s pass (compared by hash, in constant time).
    public func authenticates(serial: UUID, token: String) async throws -> Bool {
        Self.authenticates(token, hash: try await store.walletPassTokenHash(member: serial))
    }

    private static func authenticates(_ token: String, hash stored: String?) -> Bool {
        guard let stored else { return false }
        return constantTimeEquals(Array(hash(token).utf8), Array(stored.utf8))
    }

    private func view(_ uuid: UUID) async throws -> WalletPassView {
        guard let view = try await store.walletPassView(member: uuid) else {
            throw MembershipError(.notFound, "No member has uuid \(uuid.lowercasedText).")
        }
        return view
    }

    private func build(_ view: WalletPassView, token: String) async throws -> SignedPass {
        let member = view.head.member
        let card = try await cards.currentToken(memberUUID: member.uuid)
        // A reminder is shown while it is about the coverage the card shows (a renewal makes it stale).
        let reminder = view.reminder.flatMap { $0.coverageEnd == card.coverageEnd ? $0.threshold : nil }
        let pass = MembershipPass(
            serialNumber: member.uuid.lowercasedText,
            memberName: member.name,
            membershipID: member.membershipID,
            // A pass installed before the member's cards were bound to the phone: its barcode would be refused
            // at every counter, so it shows none and says to show the card from the app.
            cardToken: member.deviceKey == nil ? card.token : nil,
            coverageEnd: card.coverageEnd,
            // Every period the member bought was cancelled: the card stands for nothing paid.
            voided: card.coverageEnd == nil && view.head.lastPeriodSeq > 0,
            authenticationToken: token,
            webServiceURL: webServiceURL,
            reminder: reminder
        )
        return SignedPass(
            archive: try PassPackage.build(pass, identity: identity, now: cards.now()),
            lastModified: view.lastChange ?? member.createdAt
        )
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
