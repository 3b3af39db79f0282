public import Foundation

/// Members' online payments: their checkouts, what the gateway said of them, and the period each paid one sold.
///
/// Every change to a payment is made in one transaction with the guard it depends on (the payment's status read
/// under the row's lock), so two instances hearing the same webhook, or a webhook racing the reconciler, sell once.
public protocol PaymentStore: Sendable {
    /// Records `draft` (status `creating`) unless its idempotency key is already recorded: then the payment that
    /// key made (`created` false), whatever it asked for.
    func beginPayment(_ draft: Payment) async throws -> (payment: Payment, created: Bool)
    /// Takes over a payment left `creating` since `stuckSince` or earlier (its process died before the gateway
    /// answered): true if this caller took it, its `updatedAt` now `now`.
    func takeOverCreation(of id: UUID, stuckSince: Int64, now: Int64) async throws -> Bool
    /// Gives a `creating` payment the gateway's checkout: it is `pending` from now on. Nil: it was not `creating`
    /// any more.
    func attachCheckout(to id: UUID, checkoutID: String, checkoutURL: String, livemode: Bool, now: Int64) async throws -> Payment?
    /// Forgets a `creating` payment whose checkout the gateway refused: its key may be used again.
    func discardCreation(of id: UUID) async throws

    func payment(id: UUID) async throws -> Payment?
    func payment(checkoutID: String) async throws -> Payment?
    /// Payments newest first, of one status or all.
    func payments(status: PaymentStatus?, limit: Int) async throws -> [Payment]

    /// Applies an observation that sells nothing (``PaymentTransition/move(_:)``, `unchanged`, `mismatch`) and
    /// keeps `event`, in one transaction with the status it is checked against: the payment's status is read
    /// again under its lock and the transition worked out from it. A read-back (`event.source` reconciler) that
    /// finds the payment ended as the gateway has it settles it (``Payment/readBackSettles(_:status:)``). Answers
    /// the transition made.
    func recordObservation(
        _ observation: CheckoutObservation,
        of paymentID: UUID,
        event: PaymentEvent
    ) async throws -> PaymentTransition
    /// Sells the months of a paid checkout: `sale` (worked out on the ledger's head at `expectedVersion`) and the
    /// payment's new status `paid`, its event and its audit entry, in one transaction, unless the payment is paid
    /// already (then only `event`, as unchanged, is kept, and the answer is false). Throws
    /// ``LedgerVersionConflict`` (writing nothing) if the member's ledger moved on.
    func commitPaidCheckout(
        _ sale: SaleRecord,
        expectedVersion: Int64,
        payment paymentID: UUID,
        event: PaymentEvent,
        audit: AuditEntry
    ) async throws -> Bool
    /// Keeps an event about no payment of ours.
    func recordPaymentEvent(_ event: PaymentEvent) async throws

    /// Payments not yet settled (open, or closed by a webhook and not yet confirmed by a read-back) whose next check
    /// is due at `now`, oldest first, each pushed to its next check (`checks` + 1, at `now` + `backoff(checks +
    /// 1)`) in the same transaction, so another instance does not read it too.
    func claimDuePayments(now: Int64, limit: Int, backoff: @Sendable (Int) -> Int64) async throws -> [Payment]
    /// The gateway's words, newest first: all, only those the team should look at, or those about one checkout.
    func paymentEvents(needingAttention: Bool, checkoutID: String?, limit: Int) async throws -> [PaymentEvent]
    /// Payments made on the Algiers days `from`…`to` (by their creation), counted and summed by day and status as
    /// they stand now.
    func paymentDays(from: Int64, to: Int64) async throws -> [PaymentDay]
    /// How many payments the reconciler has still to settle (open, or closed by a webhook and not yet confirmed).
    func unsettledPayments() async throws -> Int
}

/// The payments of one Algiers day in one status: how many, and their dinars.
public struct PaymentDay: Sendable, Hashable {
    public var day: Int64
    public var status: PaymentStatus
    public var count: Int64
    public var dzd: Int64

    public init(day: Int64, status: PaymentStatus, count: Int64, dzd: Int64) {
        self.day = day
        self.status = status
        self.count = count
        self.dzd = dzd
    }
}
