public import Foundation

/// A member's online payment for months of membership, through a payment gateway's hosted checkout (Chargily Pay):
/// asked for by the app, paid on the gateway's page, and sold as one period when the gateway says it was paid.
public struct Payment: Sendable, Hashable {
    /// Our reference, sent to the gateway in the checkout's metadata.
    public var id: UUID
    public var memberUUID: UUID
    public var months: Int
    /// What the member is asked to pay, from the price list (never from the client).
    public var amountDZD: Int
    public var status: PaymentStatus
    /// The gateway's checkout, once created.
    public var checkoutID: String?
    /// The gateway's page the member pays on.
    public var checkoutURL: String?
    /// Whether the checkout is a real one (the gateway's live mode) rather than a test.
    public var livemode: Bool
    /// Whose idempotency key created it (the credential that asked), the key, and a hash of what was asked.
    public var keyScope: String
    public var idempotencyKey: String
    public var requestHash: String
    public var createdAt: Int64
    public var updatedAt: Int64
    /// The period the payment sold, once paid.
    public var periodID: UUID?
    public var paidAt: Int64?
    /// When the reconciler reads the checkout back next (``Payment/settled``: never again), and how many times it
    /// has.
    public var nextCheckAt: Int64
    public var checks: Int

    public init(
        id: UUID,
        memberUUID: UUID,
        months: Int,
        amountDZD: Int,
        status: PaymentStatus,
        checkoutID: String? = nil,
        checkoutURL: String? = nil,
        livemode: Bool,
        keyScope: String,
        idempotencyKey: String,
        requestHash: String,
        createdAt: Int64,
        updatedAt: Int64,
        periodID: UUID? = nil,
        paidAt: Int64? = nil,
        nextCheckAt: Int64,
        checks: Int = 0
    ) {
        self.id = id
        self.memberUUID = memberUUID
        self.months = months
        self.amountDZD = amountDZD
        self.status = status
        self.checkoutID = checkoutID
        self.checkoutURL = checkoutURL
        self.livemode = livemode
        self.keyScope = keyScope
        self.idempotencyKey = idempotencyKey
        self.requestHash = requestHash
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.periodID = periodID
        self.paidAt = paidAt
        self.nextCheckAt = nextCheckAt
        self.checks = checks
    }
}

/// Where a payment stands. `paid` is final: nothing the gateway says afterwards undoes it.
public enum PaymentStatus: String, Sendable, Hashable, CaseIterable, Codable {
    /// Recorded, its checkout being created at the gateway (no page to pay on yet).
    case creating
    /// The gateway's statuses.
    case pending, processing, paid, failed, canceled, expired
    /// The gateway said paid for another amount, currency or mode than asked: nothing sold; the team decides.
    case mismatched

    /// A status from which only a `paid` can still move it (the gateway took the money after all).
    public var isClosed: Bool {
        switch self {
        case .creating, .pending, .processing: false
        case .paid, .failed, .canceled, .expired, .mismatched: true
        }
    }

    /// Whether the payment is final: nothing the gateway says changes it any more.
    public var isFinal: Bool { self == .paid || self == .mismatched }
}

extension Payment {
    /// The `nextCheckAt` of a payment the reconciler need not read back again: final, or closed and confirmed so
    /// by a read-back (a webhook saying "failed" is not enough: the gateway may have taken the money after all,
    /// and its API says so).
    public static let settled = Int64.max

    /// Whether `observation`, read back from the gateway, settles the payment as it now stands (`status`): final,
    /// or ended here and ended unpaid at the gateway.
    public static func readBackSettles(_ observation: CheckoutObservation, status: PaymentStatus) -> Bool {
        status.isFinal || (status.isClosed && observation.status.isClosed && observation.status != .paid)
    }
}

/// What the gateway says of a checkout: its status, and the amount, currency and mode it says were paid.
public struct CheckoutObservation: Sendable, Hashable {
    public var checkoutID: String
    public var status: PaymentStatus
    public var amount: Int
    public var currency: String
    public var livemode: Bool
    /// Our payment's id as the checkout's metadata carries it (nil: none, or not one of ours).
    public var paymentID: UUID?

    public init(checkoutID: String, status: PaymentStatus, amount: Int, currency: String, livemode: Bool, paymentID: UUID?) {
        self.checkoutID = checkoutID
        self.status = status
        self.amount = amount
        self.currency = currency
        self.livemode = livemode
        self.paymentID = paymentID
    }
}

/// What one observation of the gateway does to a payment: the payment's state machine.
public enum PaymentTransition: Sendable, Hashable {
    /// Sell the months: the gateway says paid, for exactly what was asked.
    case sell
    /// Move to the status given (the gateway says how it ended, or that it is being processed).
    case move(PaymentStatus)
    /// Nothing to do: already there, or a late word on a payment that is final.
    case unchanged
    /// The gateway says paid, but not what was asked: sell nothing, keep it for the team.
    case mismatch(String)

    /// The transition `observation` makes from `payment`.
    public static func of(_ payment: Payment, observing observation: CheckoutObservation) -> PaymentTransition {
        if payment.status.isFinal { return .unchanged }
        guard observation.status == .paid else {
            // A payment that ended stays ended; one still open follows the gateway (never back to pending).
            if payment.status.isClosed || observation.status == payment.status || observation.status == .pending
                || observation.status == .creating || observation.status == .mismatched
            {
                return .unchanged
            }
            return .move(observation.status)
        }
        if observation.currency.lowercased() != "dzd" {
            return .mismatch("paid in \(observation.currency), not DZD")
        }
        if observation.amount != payment.amountDZD {
            return .mismatch("paid \(observation.amount) DZD, not the \(payment.amountDZD) DZD asked")
        }
        if observation.livemode != payment.livemode {
            return .mismatch(observation.livemode ? "paid in live mode for a test checkout" : "paid in test mode for a live checkout")
        }
        return .sell
    }
}

/// One thing the gateway said (a webhook, or a checkout read back), as kept for the team: what it was about and
/// what it did.
public struct PaymentEvent: Sendable, Hashable {
    /// Where it came from.
    public enum Source: String, Sendable, Hashable, Codable {
        case webhook, reconciler
    }

    /// What it did.
    public enum Outcome: String, Sendable, Hashable, CaseIterable, Codable {
        /// The months were sold.
        case sold
        /// The payment moved to another status.
        case moved
        /// Nothing changed: already known, or a late word on a final payment.
        case unchanged
        /// Paid for another amount, currency or mode: nothing sold.
        case mismatch
        /// About no payment of ours: nothing sold.
        case unknownCheckout = "unknown_checkout"

        /// Whether the team should look at it.
        public var needsAttention: Bool { self == .mismatch || self == .unknownCheckout }
    }

    /// Its place in the list (given by the store).
    public var seq: Int64
    public var at: Int64
    public var source: Source
    public var checkoutID: String
    /// The gateway's status it reported (as the gateway spelt it).
    public var reported: String
    public var paymentID: UUID?
    public var outcome: Outcome
    public var detail: String

    public init(
        seq: Int64 = 0,
        at: Int64,
        source: Source,
        checkoutID: String,
        reported: String,
        paymentID: UUID?,
        outcome: Outcome,
        detail: String
    ) {
        self.seq = seq
        self.at = at
        self.source = source
        self.checkoutID = checkoutID
        self.reported = reported
        self.paymentID = paymentID
        self.outcome = outcome
        self.detail = detail
    }
}
