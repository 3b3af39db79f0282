public import CardToken
import CoreMetrics

/// The service's own counters, beside Hummingbird's request metrics; exported at `GET /metrics`.
///
/// Each counter is looked up in the metrics system when counted, not kept from a first use: one kept from
/// before the system was bootstrapped (a use case run before the server starts) would count nowhere.
public enum CardMetrics {
    public static func cardIssued() { Counter(label: "peez_cards_issued_total").increment() }
    public static func activated() { Counter(label: "peez_activations_total").increment() }
    public static func activationReplayed() { Counter(label: "peez_activation_replays_total").increment() }
    public static func cancelled() { Counter(label: "peez_cancellations_total").increment() }

    public static func verification(_ verdict: Verdict) {
        Counter(label: "peez_verifications_total", dimensions: [("verdict", verdict.rawValue)]).increment()
    }
}
