public import CardToken
import CardWire
import Foundation

/// What the counter answers for a scan: the card's verdict, or `cannot_confirm` when the trust data or the
/// clock cannot be relied on, with warnings a vendor should see beside it.
public struct CounterVerdict: Sendable {
    public enum Outcome: Sendable {
        /// The card's verdict from trust data that may be relied on.
        case card(VerificationResult)
        /// Neither valid nor invalid: the trust data has expired, or the device's clock is wrong.
        case cannotConfirm(reason: String)
    }

    public var outcome: Outcome
    /// For example "trust data is 30 h old".
    public var warnings: [String]

    public init(outcome: Outcome, warnings: [String] = []) {
        self.outcome = outcome
        self.warnings = warnings
    }

    /// Trust data older than this since the last successful sync carries a warning: 24 hours.
    public static let warningAge: Int64 = 24 * 3600
    /// How far the device's clock may be behind the newest service time seen before it is called wrong.
    public static let clockTolerance: Int64 = 300

    /// The verdict on `token` at the device's time `now`, from `trust` and the state's clock readings.
    public static func judge(_ token: some Collection<UInt8>, trust: CounterTrust, state: CounterState, now: Int64) -> CounterVerdict {
        if now < state.newestServerTime - clockTolerance {
            return CounterVerdict(outcome: .cannotConfirm(reason: "this device's clock reads \(AlgiersCalendar.minuteStamp(now)), earlier than the service's time already seen (\(AlgiersCalendar.minuteStamp(state.newestServerTime))): the clock is wrong or was set back; set it right and sync"), warnings: [])
        }
        if now > trust.validUntil {
            return CounterVerdict(outcome: .cannotConfirm(reason: "the trust data expired \(AlgiersCalendar.minuteStamp(trust.validUntil)) (Algiers); sync to check cards again"), warnings: [])
        }
        var warnings: [String] = []
        let age = now - state.lastSyncAt
        if age > warningAge { warnings.append("trust data is \(age / 3600) h old") }
        do {
            return CounterVerdict(outcome: .card(try trust.verifier().verify(utf8: token, now: now)), warnings: warnings)
        } catch {
            return CounterVerdict(outcome: .cannotConfirm(reason: "the trust data cannot be used: \(error.reason)"), warnings: warnings)
        }
    }

    /// The verdict's name as the JSON and the log write it: a card verdict, or `cannot_confirm`.
    public var code: String {
        switch outcome {
        case .card(let result): return result.verdict.rawValue
        case .cannotConfirm: return "cannot_confirm"
        }
    }
}
