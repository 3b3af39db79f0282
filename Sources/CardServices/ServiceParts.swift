import CoreMetrics
import PeezBasics
import Synchronization

/// The parts of the service that can fail on their own (Apple Wallet, its pushes, Google Wallet, the reminders,
/// TLS, online payments) and the certificates and keys they hold, with the day each ends. A part that cannot be used is
/// `unavailable` with its reason and the card service serves on without it: `/health`, `/metrics`,
/// `peez check`, `peez wallet status` and the console read this one record.
public final class ServiceParts: Sendable {
    /// A part that can fail on its own.
    public enum Part: String, Sendable, CaseIterable, Codable {
        case appleWallet = "apple_wallet"
        case applePush = "apple_push"
        case googleWallet = "google_wallet"
        case reminders
        case tls
        /// Online payments through Chargily Pay.
        case payments
    }

    /// How a part stands.
    public enum Status: String, Sendable, Codable {
        /// Configured and working.
        case ok
        /// Configured, but it cannot be used now (an expired certificate, an unreadable file, a refused key).
        case unavailable
    }

    /// One part's state and why.
    public struct State: Sendable, Equatable, Codable {
        public var status: Status
        public var reason: String?
    }

    /// A certificate or key that ends: what it is, the setting that names it, and its last valid second.
    public struct Expiry: Sendable, Equatable {
        public var name: String
        public var setting: String
        public var notAfter: Int64

        public init(name: String, setting: String, notAfter: Int64) {
            self.name = name
            self.setting = setting
            self.notAfter = notAfter
        }
    }

    /// How long before its end a certificate or key is warned about.
    public static let warningWindow: Int64 = 30 * 86_400

    private struct Record {
        var parts: [Part: State] = [:]
        var expiries: [String: Expiry] = [:]
    }

    private let record = Mutex(Record())

    public init() {}

    /// `part` is configured and works.
    public func markWorking(_ part: Part) { set(part, State(status: .ok, reason: nil)) }

    /// `part` is configured but cannot be used, for `reason` (a sentence naming the setting and the fix).
    public func markUnavailable(_ part: Part, _ reason: String) { set(part, State(status: .unavailable, reason: reason)) }

    private func set(_ part: Part, _ state: State) {
        record.withLock { $0.parts[part] = state }
        Self.gauge(part, state)
    }

    /// Records a certificate or key and its end (replacing one of the same name).
    public func note(_ expiry: Expiry) {
        record.withLock { $0.expiries[expiry.name] = expiry }
        Self.gauge(expiry)
    }

    /// Records every part and certificate in the metrics system again: what was recorded before the system was
    /// bootstrapped (settings are read before the server starts) went nowhere.
    public func recordMetrics() {
        let (parts, expiries) = record.withLock { ($0.parts, $0.expiries) }
        for (part, state) in parts { Self.gauge(part, state) }
        for expiry in expiries.values { Self.gauge(expiry) }
    }

    /// `peez_part_up{part}`: 1 when the part works, 0 when it cannot be used.
    private static func gauge(_ part: Part, _ state: State) {
        Gauge(label: "peez_part_up", dimensions: [("part", part.rawValue)]).record(state.status == .ok ? 1 : 0)
    }

    /// `peez_certificate_expiry_seconds{certificate}`: the last valid second (seconds since the epoch).
    private static func gauge(_ expiry: Expiry) {
        Gauge(label: "peez_certificate_expiry_seconds", dimensions: [("certificate", expiry.name)]).record(expiry.notAfter)
    }

    /// The configured parts and their states; a part that was never configured is absent.
    public var parts: [Part: State] { record.withLock { $0.parts } }

    /// The state of `part`, nil when it is not configured.
    public func state(_ part: Part) -> State? { record.withLock { $0.parts[part] } }

    /// Every certificate and key recorded, the soonest to end first.
    public var expiries: [Expiry] { record.withLock { $0.expiries.values.sorted { ($0.notAfter, $0.name) < ($1.notAfter, $1.name) } } }

    /// Whether every configured part works.
    public var allWorking: Bool { parts.values.allSatisfy { $0.status == .ok } }
}

extension ServiceParts.Expiry {
    /// How this certificate stands at `now`: `ok`, `warn` within ``ServiceParts/warningWindow`` of its end, or
    /// `fail` once ended, with a line saying so.
    public func standing(at now: Int64) -> (level: CheckLevel, line: String) {
        let day = AlgiersCalendar.iso8601(notAfter)
        let days = (notAfter - now) / 86_400
        if now > notAfter { return (.fail, "\(name) (\(setting)) ended on \(day): renew it") }
        if notAfter - now <= ServiceParts.warningWindow { return (.warn, "\(name) (\(setting)) ends on \(day), in \(days) days: renew it") }
        return (.ok, "\(name) (\(setting)) ends on \(day) (\(days) days)")
    }
}

/// How one check of the service stands, as `peez check` and the console print it.
public enum CheckLevel: String, Sendable, Codable, Comparable {
    case ok, warn, fail

    /// The three, from best to worst.
    public static let allLevels: [CheckLevel] = [.ok, .warn, .fail]

    private var rank: Int {
        switch self {
        case .ok: return 0
        case .warn: return 1
        case .fail: return 2
        }
    }

    public static func < (lhs: CheckLevel, rhs: CheckLevel) -> Bool { lhs.rank < rhs.rank }
}
