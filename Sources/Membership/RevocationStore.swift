/// The revocation list counters and verifiers apply.
public protocol RevocationStore: Sendable {
    /// The whole revocation list, or with `since` only the changes after that version (the whole list when
    /// `since` is newer than the list, which a counter holding another database's version may send).
    func revocations(since: Int64?) async throws -> RevocationSnapshot
    /// The members whose paid time ends after `now` and after every card their phones were shown (the backend's
    /// card routes and Wallet passes), with when their latest sale was recorded; with `after`, only those whose
    /// latest sale was recorded at or after it.
    func renewals(after: Int64?, now: Int64) async throws -> [Renewal]
}

/// A member renewed after the cards the phone holds were issued: what a counter needs to answer for an old card.
public struct Renewal: Sendable, Hashable {
    public var membershipID: String
    /// The end of the member's paid time.
    public var paidUntil: Int64
    /// When the latest sale was recorded: cards issued before it show less than the member paid for.
    public var renewedAt: Int64

    public init(membershipID: String, paidUntil: Int64, renewedAt: Int64) {
        self.membershipID = membershipID
        self.paidUntil = paidUntil
        self.renewedAt = renewedAt
    }
}

extension RevocationStore {
    /// The whole revocation list.
    public func revocations() async throws -> RevocationSnapshot {
        try await revocations(since: nil)
    }
}
