import CoreMetrics
import Membership

/// The payments' counters, exported at `GET /metrics` beside ``CardMetrics``.
enum PaymentMetrics {
    static func checkoutCreated() { Counter(label: "peez_payment_checkouts_total").increment() }

    /// One thing the gateway said, by what it did.
    static func event(_ outcome: PaymentEvent.Outcome) {
        Counter(label: "peez_payment_events_total", dimensions: [("outcome", outcome.rawValue)]).increment()
    }

    static func reconcileFailed() { Counter(label: "peez_payment_reconcile_errors_total").increment() }
}
