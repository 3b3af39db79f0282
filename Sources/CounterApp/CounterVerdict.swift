public import CardToken
public import CardWire
import Foundation
import PeezBasics

/// What the counter answers for a scan: the card's verdict, or `cannot_confirm` when the trust data or the
/// clock cannot be relied on, with warnings a vendor should see beside it.
public struct CounterVerdict: Sendable {
    /// Why a scan can be neither accepted nor refused.
    public enum CannotConfirm: Sendable, Equatable, CustomStringConvertible {
        /// The device's clock reads earlier than the service's time already seen: set back, or wrong.
        case clockBehind(device: Int64, service: Int64)
        /// The trust data's validity ended.
        case trustExpired(validUntil: Int64)
        /// The trust data on disk does not check.
        case trustUnusable(String)
        /// The newest trust data on disk is damaged, and the older state kept beside it may miss a change since
        /// (a revocation): it refuses, but it cannot call a card valid.
        case trustDamaged(String)

        public var description: String {
            switch self {
            case .clockBehind(let device, let service):
                return
                    "this device's clock reads \(AlgiersCalendar.minuteStamp(device)), earlier than the service's time already seen (\(AlgiersCalendar.minuteStamp(service))): the clock is wrong or was set back; set it right and sync"
            case .trustExpired(let validUntil):
                return "the trust data expired \(AlgiersCalendar.minuteStamp(validUntil)) (Algiers); sync to check cards again"
            case .trustUnusable(let reason):
                return "the trust data cannot be used: \(reason)"
            case .trustDamaged(let reason):
                return "the newest trust data is damaged (\(reason)); the older data held may miss a recent revocation: sync to confirm cards again"
            }
        }
    }

    /// Something a vendor should see beside a verdict.
    public enum Warning: Sendable, Equatable, CustomStringConvertible {
        /// The last successful sync was this many hours ago.
        case trustAge(hours: Int64)
        /// This counter scanned the same presentation before, at this time: the same person again.
        case samePresentation(firstScannedAt: Int64)

        public var description: String {
            switch self {
            case .trustAge(let hours): return "trust data is \(hours) h old"
            case .samePresentation(let first):
                return "the same presentation was scanned here at \(AlgiersCalendar.minuteStamp(first)) (Algiers): the same person"
            }
        }
    }

    public enum Outcome: Sendable {
        /// The card's verdict from trust data that may be relied on.
        case card(VerificationResult)
        /// Neither valid nor invalid: the trust data has expired, or the device's clock is wrong.
        case cannotConfirm(CannotConfirm)
    }

    public var outcome: Outcome
    public var warnings: [Warning]
    /// The renewal the counter answered from: the card is authentic and unrevoked but older than the member's
    /// latest sale, which it does not show (expired or unpaid on its face, or valid with less paid time than the
    /// sale gave); VALID until the renewal's end, the member's coverage as best known.
    public var renewal: RenewalListDocument.Entry?

    public init(outcome: Outcome, warnings: [Warning] = [], renewal: RenewalListDocument.Entry? = nil) {
        self.outcome = outcome
        self.renewal = renewal
        self.warnings = warnings
    }

    /// Trust data older than this since the last successful sync carries a warning (counter-rules.json: 24 hours).
    public static var warningAge: Int64 { CounterRules.shared.trustWarningAge }
    /// How far the device's clock may be behind the newest service time seen before it is called wrong
    /// (counter-rules.json: 5 minutes).
    public static var clockTolerance: Int64 { CounterRules.shared.clockTolerance }

    /// The verdict on `token` at the device's time `now`, from `trust` and the state's clock readings; a
    /// presentation is accepted within `window`.
    public static func judge(
        _ token: some Collection<UInt8>,
        trust: CounterTrust,
        state: CounterState,
        now: Int64,
        window: PresentationWindow = .standard
    ) -> CounterVerdict {
        if now < state.newestServerTime - clockTolerance {
            return CounterVerdict(outcome: .cannotConfirm(.clockBehind(device: now, service: state.newestServerTime)))
        }
        if now > trust.validUntil {
            return CounterVerdict(outcome: .cannotConfirm(.trustExpired(validUntil: trust.validUntil)))
        }
        var warnings: [Warning] = []
        let age = now - state.lastSyncAt
        if age > warningAge { warnings.append(.trustAge(hours: age / 3600)) }
        do {
            var verifier = try trust.verifier()
            verifier.presentationWindow = window
            let result = verifier.verify(utf8: token, now: now)
            let renewal = Self.renewal(for: result, trust: trust, verifier: verifier, now: now)
            // Older data may still hold a refusal, but not a VALID: a revocation may have come since.
            if let damage = trust.fallback, result.verdict == .valid || renewal != nil {
                return CounterVerdict(outcome: .cannotConfirm(.trustDamaged(damage)), warnings: warnings)
            }
            return CounterVerdict(outcome: .card(result), warnings: warnings, renewal: renewal)
        } catch {
            return CounterVerdict(outcome: .cannotConfirm(.trustUnusable(error.reason)), warnings: warnings)
        }
    }

    /// The renewal that answers for a card: one of its member's, made after the card was issued, covering now,
    /// for a card refused only as expired or unpaid (VALID from the renewal), or a valid card showing less paid
    /// time than the renewal (the member's coverage is the renewal's, not the card's: a shop must not be told a
    /// member who just paid three months is nearly out). Never for a revoked card (a revocation always wins), nor
    /// for a card bound to a phone (its verdict stopped before the presentation's own checks, which a renewal
    /// must not skip).
    static func renewal(for result: VerificationResult, trust: CounterTrust, verifier: CardVerifier, now: Int64) -> RenewalListDocument.Entry? {
        let answerable = result.verdict == .expired || result.verdict == .noPaidPeriod || result.verdict == .valid
        guard answerable, let claims = result.claims, claims.deviceKey == nil,
            let renewal = trust.renewalsByMember[claims.subject], renewal.applies(to: claims, now: now, leeway: verifier.leeway),
            result.verdict != .valid || renewal.paidUntil > claims.expiresAt,
            verifier.revocations.revocationReason(for: claims) == nil
        else { return nil }
        return renewal
    }

    /// Whether a vendor may take the card as paid: VALID, or answered from a renewal.
    public var isValid: Bool {
        guard case .card(let result) = outcome else { return false }
        return result.verdict == .valid || renewal != nil
    }

    /// The verdict's name as the JSON and the log write it: a card verdict (`valid` when answered from a renewal),
    /// or `cannot_confirm`.
    public var code: String {
        switch outcome {
        case .card(let result): return renewal != nil ? Verdict.valid.rawValue : result.verdict.rawValue
        case .cannotConfirm: return "cannot_confirm"
        }
    }
}
