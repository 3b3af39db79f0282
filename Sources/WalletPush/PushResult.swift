import CoreMetrics
import Logging

/// What sending one update to Apple (a device's push) or to Google (an object's PATCH) came to: one result for
/// both channels, so the outbox settles them alike.
public enum PushResult: Sendable, Equatable {
    /// Accepted.
    case delivered
    /// The destination is gone for good (APNs: 410 Unregistered, 400 BadDeviceToken/DeviceTokenNotForTopic):
    /// forget it.
    case gone(String)
    /// Try again later (429, 5xx, an expired token, no connection).
    case retryLater(String)
    /// Refused for a reason a retry will not change (another 4xx): kept and retried with backoff while the error
    /// is on record, since it is this service's settings, not the member's, that are wrong.
    case refused(String)

    /// The outcome's name in `/metrics`.
    var metricName: String {
        switch self {
        case .delivered: return "delivered"
        case .gone: return "gone"
        case .retryLater: return "retry_later"
        case .refused: return "refused"
        }
    }
}

/// What the Wallet outboxes did, for `/metrics` and the log.
enum PushRecord {
    static let logger = Logger(label: "peez.wallet")

    /// Counts one result in `peez_wallet_pushes_total{channel, outcome}`.
    static func count(_ result: PushResult, channel: String) {
        Counter(label: "peez_wallet_pushes_total", dimensions: [("channel", channel), ("outcome", result.metricName)]).increment()
    }

    /// Logs a failed attempt once, with its reason and when the next one comes.
    static func failed(channel: String, member: String, reason: String, behind: Int, retryIn: Int64) {
        logger.warning(
            "\(channel) update not delivered",
            metadata: [
                "member": .string(member), "reason": .string(String(reason.prefix(300))), "devices_behind": .stringConvertible(behind),
                "retry_in_seconds": .stringConvertible(retryIn),
            ]
        )
    }
}
