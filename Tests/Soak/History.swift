public import Foundation
import Synchronization

/// What a client was told about one operation: answered (with what), refused (a definite no: nothing was
/// done), or unknown (a timeout, a dropped connection, a 5xx: it may or may not have been done).
public enum Outcome: String, Codable, Sendable {
    case ok, refused, unknown
}

/// One operation of the history, as Jepsen records them: who invoked what, when, and what was answered.
public struct HistoryEntry: Codable, Sendable {
    public enum Kind: String, Codable, Sendable {
        case sale, cancellation, cardFetch, fault
        /// A member's name changed, or their cards bound to a phone key or to none (`value`: the name, the key or
        /// "none").
        case rename, deviceKey
        /// A shop device's credential revoked by the team, or rotated (`expiresAt`: when the old secret stops).
        case credentialRevoke, credentialRotate
        /// An enrolment code redeemed by a counter (`code`; `credential`: the credential it gave).
        case enrolment
        /// A counter reporting its scan log's new entries (`value`: the counter's id; `entries`).
        case scanReport
        /// A `peez remind run` (`value`: the time it acted at, Unix seconds; `detail`: how it ended).
        case remindRun
        /// A member paying online: the checkout asked for (`payment`, `checkout`), then paid, failed or given up
        /// on the gateway's page (`value`).
        case checkout
        /// Cash a shop (`vendor`) handed over, recorded by the team (`value`: the dinars; `detail`: the entry's
        /// number as answered).
        case remittance
        /// An iPhone's Wallet registering its `device` for a member's pass (`value`: its push token), unregistering
        /// it, or fetching the pass after a push (`value`: the member's name the pass shows).
        case walletRegister, walletUnregister, walletUpdate
        /// A member saving their card to Google Wallet: the save link asked of the service (as the backend does
        /// for the app), then opened at Google (`value`: the object's id).
        case googleSave
    }

    public var index = 0
    public var client: String
    public var kind: Kind
    /// Seconds since the run began.
    public var invoked: Double
    public var completed: Double
    public var outcome: Outcome
    public var member: String?
    public var months: Int?
    public var vendor: String?
    public var idempotencyKey: String?
    /// The period the operation created or cancelled, when the answer named it.
    public var period: String?
    /// Each attempt's answer: an HTTP status, or what went wrong on the way.
    public var attempts: [String] = []
    /// A fault's description ("kill -9", "restart").
    public var detail: String?
    /// Which instance answered (its index), where a run has several.
    public var instance: Int?
    /// A card fetched: its token, its id and when it was issued (ISO 8601, as answered).
    public var token: String?
    public var tokenID: String?
    public var issuedAt: String?
    /// A revoking change answered: the cards of the member issued before this moment are revoked.
    public var revokedBefore: String?
    /// What a change set (a name, a device key or "none"); what a card fetched showed (`value`: its name,
    /// `deviceKey`: the key it is bound to or "none"); a checkout's end on the gateway's page.
    public var value: String?
    public var deviceKey: String?
    /// The credential a request was sent with, or that a credential change or an enrolment was about.
    public var credential: String?
    /// When the attempt that was answered 2xx was sent (seconds since the run began).
    public var answeredAttemptInvoked: Double?
    /// A rotation: when the old secret stops being accepted, in seconds since the run began (the answer's
    /// `expires_at` read against the run's own clock).
    public var expiresAt: Double?
    /// An enrolment's code.
    public var code: String?
    /// A scan report's entries, each "seq membership-id", and the numbers of those it refused for good.
    public var entries: [String]?
    public var refusedEntries: [Int]?
    /// An online payment and its Chargily checkout.
    public var payment: String?
    public var checkout: String?
    /// The Wallet device of a registration, an unregistration or an update.
    public var device: String?

    public init(
        client: String,
        kind: Kind,
        invoked: Double,
        completed: Double,
        outcome: Outcome,
        member: String? = nil,
        months: Int? = nil,
        vendor: String? = nil,
        idempotencyKey: String? = nil,
        period: String? = nil,
        detail: String? = nil
    ) {
        self.client = client
        self.kind = kind
        self.invoked = invoked
        self.completed = completed
        self.outcome = outcome
        self.member = member
        self.months = months
        self.vendor = vendor
        self.idempotencyKey = idempotencyKey
        self.period = period
        self.detail = detail
    }
}

/// The history of a run, kept in memory and written as JSON Lines, one operation a line, in completion order.
public final class History: Sendable {
    private let operations = Mutex<[HistoryEntry]>([])
    private let start = ContinuousClock.now
    /// The wall clock when the run began: the service's times are read against it.
    public let startDate = Date()

    public init() {}

    /// A time the service answered (ISO 8601), in seconds since the run began.
    public func seconds(of text: String) -> Double? {
        ISO8601DateFormatter().date(from: text).map { $0.timeIntervalSince(startDate) }
    }

    /// Seconds since the run began.
    public func now() -> Double {
        let elapsed = start.duration(to: .now).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    }

    public func record(_ operation: HistoryEntry) {
        operations.withLock { operations in
            var operation = operation
            operation.index = operations.count
            operations.append(operation)
        }
    }

    public var all: [HistoryEntry] { operations.withLock { $0 } }

    /// Writes the history to `path`, one JSON object a line.
    public func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var text = Data()
        for operation in all {
            text.append(try encoder.encode(operation))
            text.append(0x0A)
        }
        try text.write(to: URL(fileURLWithPath: path))
    }
}
