public import Foundation

/// How a request names a member.
public enum MemberReference: Sendable, Hashable, CustomStringConvertible {
    /// The backend's user id.
    case uuid(UUID)
    /// The `PEEZ-YYYYMMDD-NNNNN` id printed on the card.
    case membershipID(String)

    public var description: String {
        switch self {
        case .uuid(let uuid): return "uuid \(uuid.lowercasedText)"
        case .membershipID(let id): return "membership id \(id)"
        }
    }
}

/// What a cancellation changed.
public struct CancellationResult: Sendable, Hashable {
    public var period: SubscriptionPeriod
    /// All the member's periods after the recomputation, in purchase order.
    public var periods: [SubscriptionPeriod]
    public var coverageEnd: Int64?
    /// Cards issued before this moment are revoked.
    public var revokedBefore: Int64

    public init(period: SubscriptionPeriod, periods: [SubscriptionPeriod], coverageEnd: Int64?, revokedBefore: Int64) {
        self.period = period
        self.periods = periods
        self.coverageEnd = coverageEnd
        self.revokedBefore = revokedBefore
    }
}

/// An idempotent request's identity: who sent it, the key they chose and a hash of what they sent.
public struct IdempotencyKey: Sendable, Hashable {
    /// Whose keys these are (one credential's keys never collide with another's).
    public var scope: String
    public var key: String
    /// A hash of the request body (and anything else that must match on a retry).
    public var requestHash: String

    public init(scope: String, key: String, requestHash: String) {
        self.scope = scope
        self.key = key
        self.requestHash = requestHash
    }

    /// The longest key accepted.
    public static let maxLength = 255
}

/// The answer to a finished idempotent request, stored by the caller to replay; opaque to the ledger.
public struct StoredResponse: Sendable, Hashable {
    /// What the caller stored; the ledger neither reads nor changes it.
    public var bytes: [UInt8]

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }
}

/// What to do with an idempotent request.
public enum IdempotencyDecision: Sendable, Hashable {
    /// First time seen (or an abandoned attempt taken over): carry it out.
    case proceed
    /// Seen and finished: send this response again.
    case replay(StoredResponse)
    /// Seen with the same request, which is still being carried out.
    case inFlight
    /// Seen with a different request.
    case mismatch
    /// Closed: a copy of the request was refused (the credential that sent it withdrawn) before any copy was
    /// carried out, so none is (see ``LedgerStore/closeIdempotencyKey(_:now:abandonAfter:)``).
    case refused
}

/// The revocation list, or what was added to it after a version, with the version it is at.
public struct RevocationSnapshot: Sendable, Hashable {
    public var tokenIDs: [String]
    /// Membership id → cards issued before this time are revoked.
    public var members: [String: Int64]
    /// The list's version: each change takes the next one, in commit order, so a list at version N holds
    /// every change numbered N or less.
    public var version: Int64
    /// For a delta, the version it starts after: it holds exactly the changes numbered above `since`. Nil for
    /// the whole list.
    public var since: Int64?

    public init(tokenIDs: [String], members: [String: Int64], version: Int64, since: Int64? = nil) {
        self.tokenIDs = tokenIDs
        self.members = members
        self.version = version
        self.since = since
    }
}
