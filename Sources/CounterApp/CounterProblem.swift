import Foundation
import Membership
import PeezAPI

/// What went wrong between a counter and the service, as the counter says it to the shop: a text of
/// `counter-texts.json` (`problem.*`, or `service.<code>` for a refusal the service named by its error code) with
/// its values, in the shop's language; ``detail`` keeps the service's or the system's own words for a log.
public struct CounterProblem: Sendable, Equatable, CustomStringConvertible {
    /// The text's key in `counter-texts.json`.
    public let key: String
    /// The values of the text's placeholders.
    public let values: [String: String]
    /// The English detail (the service's message, the system's error), for a log and a support person.
    public let detail: String

    public init(_ key: String, _ values: [String: String] = [:], detail: String = "") {
        self.key = key
        self.values = values
        self.detail = detail
    }

    public var description: String { detail.isEmpty ? key : detail }

    /// The service error codes a counter words itself; any other is named by the answer's status.
    static let serviceCodes: Set<String> = [
        "not_found", "invalid_fields", "conflict", "idempotency_key_reused", "request_in_flight", "unauthenticated",
        "forbidden", "rate_limited", "payload_too_large", "bad_request", "credential_revoked", "credential_expired",
        "enrolment_code_unknown", "enrolment_code_used", "enrolment_code_expired", "enrolment_code_revoked",
    ]

    /// Refusals of the counter's own credential (`device_refusals` in `counter-rules.json`): the same request sent
    /// again would be refused again, and the counter is cut off (``CounterCutOff``).
    public static let deviceRefusals = Set(CounterRules.shared.deviceRefusals.map { "service.\($0)" })

    /// Whether this is the service's refusal of the counter's own credential: never a lost network or another error.
    public var refusesThisDevice: Bool { Self.deviceRefusals.contains(key) }

    /// The problem an error answer (`status`, `body` in the service's error shape) is: its code's text when the
    /// counter knows the code, else the status.
    public static func answered(status: Int, body: [UInt8]) -> CounterProblem {
        let error = try? JSONDecoder().decode(ServiceErrorBody.self, from: Data(body)).error
        let detail = error.map { ([$0.message] + ($0.fields ?? [:]).map { "\($0.key): \($0.value)" }.sorted()).joined(separator: "; ") }
        let key = error.map(\.code).flatMap { serviceCodes.contains($0) ? "service.\($0)" : nil } ?? "problem.status"
        return CounterProblem(key, ["status": String(status)], detail: detail ?? "status \(status)")
    }
}

extension CounterTexts {
    /// `problem` in this language.
    public func text(_ problem: CounterProblem) -> String { text(problem.key, problem.values) }
}
