public import Foundation

/// A renewal reminder: one member, one coverage end, one threshold, one channel; recorded before it is
/// delivered, so it is delivered at most once per that key whatever crashes or runs at once.
public struct Reminder: Sendable, Equatable {
    /// Which reminder of a coverage end: 7, 3 or 1 days before it, or on the day it has ended.
    /// The channel of reminders delivered through members' Apple Wallet passes.
    public static let walletChannel = "wallet"

    public enum Threshold: String, Sendable, CaseIterable, Codable {
        case sevenDays = "7d"
        case threeDays = "3d"
        case oneDay = "1d"
        case ended

        /// Days before the coverage end (0 for `ended`).
        public var days: Int64 {
            switch self {
            case .sevenDays: 7
            case .threeDays: 3
            case .oneDay: 1
            case .ended: 0
            }
        }

        /// The one reminder due for a coverage end at `now`: the most urgent threshold reached, so a member
        /// first selected a day before the end gets the 1-day reminder, not all three. Nil when none is due:
        /// more than 7 days left, or ended more than `endedFor` seconds ago.
        public static func due(coverageEnd: Int64, now: Int64, endedFor: Int64 = Reminder.endedWindow) -> Threshold? {
            let left = coverageEnd - now
            if left <= 0 { return -left < endedFor ? .ended : nil }
            return [.oneDay, .threeDays, .sevenDays].first { left <= $0.days * 86_400 }
        }
    }

    /// Where a reminder goes and what became of it.
    public enum State: String, Sendable, CaseIterable, Codable {
        /// Recorded, not yet delivered (or refused with a retryable answer): delivered when next due.
        case pending
        /// Sent, but no answer came (a timeout after sending): sent again, with the same id.
        case unknown
        /// The receiver took it (2xx), or it was written to the JSON Lines sink.
        case delivered
        /// The receiver refused it for good (a 4xx other than 408 and 429).
        case failed
        /// The member renewed (or a cancellation moved the coverage end) before delivery: not sent.
        case superseded
        /// Retries used up.
        case exhausted

        /// Whether a run delivers it when due.
        public var isOpen: Bool { self == .pending || self == .unknown }
    }

    /// `reminder id`: deterministic from the unique key, so the same reminder always travels as the same
    /// `webhook-id`, even recorded by two runs at once.
    public var id: String
    public var memberUUID: UUID
    public var coverageEnd: Int64
    public var threshold: Threshold
    public var channel: String
    public var state: State
    /// Delivery attempts begun (counted when leased, so a crash mid-delivery counts).
    public var attempts: Int
    public var nextAttemptAt: Int64
    public var lastError: String?
    public var createdAt: Int64
    public var deliveredAt: Int64?

    public init(
        id: String,
        memberUUID: UUID,
        coverageEnd: Int64,
        threshold: Threshold,
        channel: String,
        state: State,
        attempts: Int,
        nextAttemptAt: Int64,
        lastError: String?,
        createdAt: Int64,
        deliveredAt: Int64?
    ) {
        self.id = id
        self.memberUUID = memberUUID
        self.coverageEnd = coverageEnd
        self.threshold = threshold
        self.channel = channel
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastError = lastError
        self.createdAt = createdAt
        self.deliveredAt = deliveredAt
    }

    /// A coverage that ended less than this long ago still gets its "ended" reminder (a daily run missed once
    /// catches up; a member lapsed for weeks is not told again).
    public static let endedWindow: Int64 = 2 * 86_400
    /// The reminder id for a key: `rem_` and the member, coverage end, threshold and channel.
    public static func id(memberUUID: UUID, coverageEnd: Int64, threshold: Threshold, channel: String) -> String {
        "rem_\(memberUUID.uuidString.lowercased())_\(coverageEnd)_\(threshold.rawValue)_\(channel)"
    }
}

/// A leased reminder with what its delivery needs to say: the member as they are now.
public struct DueReminder: Sendable, Equatable {
    public var reminder: Reminder
    public var membershipID: String
    public var name: String
    public var language: String
    /// The member's coverage end now, re-read at lease time: different from the reminder's, it is stale.
    public var currentCoverageEnd: Int64?

    public init(reminder: Reminder, membershipID: String, name: String, language: String, currentCoverageEnd: Int64?) {
        self.reminder = reminder
        self.membershipID = membershipID
        self.name = name
        self.language = language
        self.currentCoverageEnd = currentCoverageEnd
    }

    /// A renewal or a cancellation moved the coverage end since the reminder was recorded.
    public var isSuperseded: Bool { currentCoverageEnd != reminder.coverageEnd }
}

/// What one delivery came to.
public enum ReminderOutcome: Sendable, Equatable {
    case delivered
    /// Refused for good, with the receiver's reason.
    case failed(String)
    /// Not delivered this time: retry after the schedule's delay, or `retryAfter` seconds if the receiver asked.
    /// `sent` says whether the request may have reached the receiver (a timeout after sending: `unknown`).
    case retry(String, sent: Bool, retryAfter: Int64?)
    case superseded
}

/// When a reminder that was not delivered is tried again: the schedule's delay for its attempt, with up to a
/// fifth of it added at random so that many reminders refused at once do not come back at once.
public struct RetrySchedule: Sendable, Equatable {
    /// Seconds to wait after the first, second, … failed attempt.
    public var delays: [Int64]
    /// Attempts after which a reminder is `exhausted`.
    public var maxAttempts: Int

    public init(delays: [Int64] = [0, 5, 300, 1_800, 7_200, 18_000, 36_000], maxAttempts: Int = 8) {
        self.delays = delays
        self.maxAttempts = maxAttempts
    }

    /// The next attempt's time after `attempts` failed ones, or nil when they are used up. A receiver's
    /// `Retry-After` is honoured when longer than the schedule's delay (capped at a day).
    public func nextAttempt(
        after attempts: Int,
        now: Int64,
        retryAfter: Int64? = nil,
        jitter: (Int64) -> Int64 = { $0 > 0 ? Int64.random(in: 0...($0 / 5)) : 0 }
    ) -> Int64? {
        guard attempts < maxAttempts, !delays.isEmpty else { return nil }
        let base = delays[min(max(attempts - 1, 0), delays.count - 1)]
        let delay = max(base + jitter(base), min(retryAfter ?? 0, 86_400))
        return now + delay
    }
}
