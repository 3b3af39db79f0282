import PeezBasics

/// When a key may sign cards: from its publication until its retirement, in seconds since the epoch.
///
/// A retired key keeps verifying the cards it signed while it was current, but a card that says it was
/// signed outside its key's window is refused (verification step 9): a retired key that leaks later cannot
/// make cards dated after its retirement.
public struct KeyValidityWindow: Sendable, Hashable, Codable {
    /// When the key was published; nil when no start was recorded.
    public var publishedAt: Int64?
    /// When the key stopped signing new cards; nil while it may still sign.
    public var retiredAt: Int64?

    enum CodingKeys: String, CodingKey {
        case publishedAt = "published_at"
        case retiredAt = "retired_at"
    }

    public init(publishedAt: Int64? = nil, retiredAt: Int64? = nil) {
        self.publishedAt = publishedAt
        self.retiredAt = retiredAt
    }

    /// A window with no bounds: every issue time is inside.
    public static let unbounded = KeyValidityWindow()

    /// Why a card issued at `issuedAt` falls outside this window, allowing `leeway` seconds either side, or nil
    /// when it is inside.
    public func refusal(issuedAt: Int64, leeway: Int64) -> String? {
        if let publishedAt, issuedAt < publishedAt.subtractingClamped(leeway) {
            return "issued \(CardVerifier.display(issuedAt)), before its key was published \(CardVerifier.display(publishedAt))"
        }
        if let retiredAt, issuedAt > retiredAt.addingClamped(leeway) {
            return "issued \(CardVerifier.display(issuedAt)), after its key was retired \(CardVerifier.display(retiredAt))"
        }
        return nil
    }
}
