public import CardToken
import CoreMetrics

/// The service's own counters, beside Hummingbird's request metrics; exported at `GET /metrics`.
public enum CardMetrics {
    private static let cardsIssued = Counter(label: "peez_cards_issued_total")
    private static let activations = Counter(label: "peez_activations_total")
    private static let activationReplays = Counter(label: "peez_activation_replays_total")
    private static let cancellations = Counter(label: "peez_cancellations_total")

    public static func cardIssued() { cardsIssued.increment() }
    public static func activated() { activations.increment() }
    public static func activationReplayed() { activationReplays.increment() }
    public static func cancelled() { cancellations.increment() }

    public static func verification(_ verdict: Verdict) {
        Counter(label: "peez_verifications_total", dimensions: [("verdict", verdict.rawValue)]).increment()
    }
}
