import CardCrypto
public import Foundation
public import Membership
public import PeezAPI
import PeezBasics

/// A member's online payment, as use cases: a checkout asked for by the app (once per idempotency key), and what
/// the gateway then says of it (a webhook, or the checkout read back by the reconciler) applied by the payment's
/// state machine. A paid checkout becomes exactly one period, sold like a shop's sale (the same placing, card
/// and answer), in one transaction with the payment's new status, its event and its audit entry.
public struct PaymentService: Sendable {
    public let store: any PaymentStore & LedgerStore
    public let cards: CardService
    public let gateway: any CheckoutGateway

    /// A checkout left being created longer than this belonged to a process that died, and is created again.
    public static let creationTakeOverAfter: Int64 = 60
    /// How long after its creation a checkout nobody has heard the end of is first read back (seconds); each
    /// later read-back waits twice as long as the one before, at most 6 hours.
    public let checkAfter: Int64
    /// A checkout still open this long after its creation is ended at the gateway.
    public static let expireAfter: Int64 = 24 * 3_600

    public init(store: any PaymentStore & LedgerStore, cards: CardService, gateway: any CheckoutGateway, checkAfter: Int64 = 5 * 60) {
        self.store = store
        self.cards = cards
        self.gateway = gateway
        self.checkAfter = max(1, checkAfter)
    }

    /// A checkout as the app asked for it.
    public struct CheckoutRequest: Sendable {
        public var memberUUID: UUID
        public var body: CheckoutRequestBody
        /// Whose idempotency keys these are: the credential that sent the request.
        public var keyScope: String
        public var idempotencyKey: String

        public init(memberUUID: UUID, body: CheckoutRequestBody, keyScope: String, idempotencyKey: String) {
            self.memberUUID = memberUUID
            self.body = body
            self.keyScope = keyScope
            self.idempotencyKey = idempotencyKey
        }
    }

    /// The payment a checkout request made now, or the one its key made before.
    public enum CheckoutAnswer: Sendable, Hashable {
        case created(Payment)
        case replayed(Payment)
    }

    /// Creates the gateway's checkout for `request` once per idempotency key: the amount from the price list, our
    /// payment's id in its metadata. Throws a ``MembershipError`` (`invalidFields`, `notFound`,
    /// `idempotencyKeyReused`, `requestInFlight`) or a ``CheckoutGatewayError`` (nothing was kept: the same key
    /// may be sent again).
    public func startCheckout(_ request: CheckoutRequest) async throws -> CheckoutAnswer {
        let body = request.body
        try body.validate()
        guard try await store.ledgerHead(of: .uuid(request.memberUUID)) != nil else {
            throw MembershipError(.notFound, "No member has the uuid \(request.memberUUID.lowercasedText).")
        }
        let now = cards.now()
        let draft = Payment(
            id: UUID(),
            memberUUID: request.memberUUID,
            months: body.months,
            amountDZD: Pricing.monthlyPriceDZD * body.months,
            status: .creating,
            livemode: gateway.livemode,
            keyScope: request.keyScope,
            idempotencyKey: request.idempotencyKey,
            requestHash: Hex.encode(SHA256.hash(Array("\(request.memberUUID.lowercasedText) ".utf8) + (try RequestDecoding.canonical(body)))),
            createdAt: now,
            updatedAt: now,
            nextCheckAt: now + checkAfter
        )
        let (payment, created) = try await store.beginPayment(draft)
        if !created {
            guard payment.requestHash == draft.requestHash else {
                throw MembershipError(.idempotencyKeyReused, "This Idempotency-Key was used for another checkout; use a new key for a new one.")
            }
            guard payment.status == .creating else { return .replayed(payment) }
            guard try await store.takeOverCreation(of: payment.id, stuckSince: now - Self.creationTakeOverAfter, now: now) else {
                throw MembershipError(.requestInFlight, "A checkout with this Idempotency-Key is still being created; retry in a moment.")
            }
        }
        let checkout: CreatedCheckout
        do {
            checkout = try await gateway.createCheckout(
                CheckoutCreation(
                    paymentID: payment.id,
                    amountDZD: payment.amountDZD,
                    description: "PEEZ membership, \(payment.months) month\(payment.months == 1 ? "" : "s")",
                    paymentMethod: body.payment_method,
                    locale: body.locale
                )
            )
        } catch {
            // No page was handed out: nobody can pay a checkout the gateway may have made; the key is free again. (A
            // discard that fails leaves the payment creating: the same key takes it over after `creationTakeOverAfter`.)
            try? await store.discardCreation(of: payment.id)
            throw error
        }
        guard
            let attached = try await store.attachCheckout(
                to: payment.id,
                checkoutID: checkout.id,
                checkoutURL: checkout.url,
                livemode: checkout.livemode,
                now: cards.now()
            )
        else {
            // Another request with the same key took the creation over and finished first: answer its checkout.
            guard let current = try await store.payment(id: payment.id) else {
                throw MembershipError(.conflict, "The checkout was abandoned while it was being created; retry.")
            }
            return .replayed(current)
        }
        PaymentMetrics.checkoutCreated()
        return created ? .created(attached) : .replayed(attached)
    }

    /// Applies what the gateway says of a checkout (`source`: a verified webhook or a read-back) and answers what
    /// it did. A checkout of no payment of ours is kept for the team and sells nothing.
    @discardableResult
    public func apply(_ observation: CheckoutObservation, reported: String, source: PaymentEvent.Source) async throws -> PaymentEvent.Outcome {
        let now = cards.now()
        var event = PaymentEvent(
            at: now,
            source: source,
            checkoutID: observation.checkoutID,
            reported: reported,
            paymentID: nil,
            outcome: .unknownCheckout,
            detail: "no payment has this checkout"
        )
        guard let payment = try await store.payment(checkoutID: observation.checkoutID) else {
            try await store.recordPaymentEvent(event)
            PaymentMetrics.event(.unknownCheckout)
            return .unknownCheckout
        }
        event.paymentID = payment.id
        let outcome: PaymentEvent.Outcome
        switch try await store.recordObservation(observation, of: payment.id, event: event) {
        case .sell: outcome = try await sell(payment, event: event) ? .sold : .unchanged
        case .move: outcome = .moved
        case .unchanged: outcome = .unchanged
        case .mismatch: outcome = .mismatch
        }
        PaymentMetrics.event(outcome)
        return outcome
    }

    /// Sells `payment`'s months: false if another instance sold them first.
    private func sell(_ payment: Payment, event: PaymentEvent) async throws -> Bool {
        try await LedgerRetry.run { _ in
            guard let head = try await store.ledgerHead(of: .uuid(payment.memberUUID)) else {
                throw MembershipError(.notFound, "The member of payment \(payment.id.lowercasedText) is gone.")
            }
            let now = cards.now()
            // The shop's sale use case, its channel online (no shop), its key the payment's.
            let sale = try cards.sale(
                months: payment.months,
                amountDZD: payment.amountDZD,
                source: .inApp,
                vendorID: nil,
                after: head,
                key: IdempotencyKey(scope: "payment", key: payment.id.lowercasedText, requestHash: payment.requestHash),
                now: now
            )
            var event = event
            event.outcome = .sold
            event.detail = "period \(sale.period.id.lowercasedText)"
            let audit = AuditEntry(
                at: now,
                actor: event.source == .webhook ? "chargily webhook" : "payment reconciler",
                actorCredentialID: nil,
                address: "chargily",
                action: "payment.paid",
                target: payment.id.lowercasedText,
                detail: "checkout \(event.checkoutID): \(payment.months) month(s), \(payment.amountDZD) DZD, period \(sale.period.id.lowercasedText)",
                values: [
                    AuditValue("checkout", event.checkoutID), AuditValue("months", String(payment.months)),
                    AuditValue("amount_dzd", String(payment.amountDZD)), AuditValue("period", sale.period.id.lowercasedText),
                ]
            )
            let sold = try await store.commitPaidCheckout(sale, expectedVersion: head.version, payment: payment.id, event: event, audit: audit)
            if sold {
                CardMetrics.cardIssued()
                CardMetrics.activated()
            }
            return sold
        }
    }

    /// What one reconciliation pass did.
    public struct ReconcileSummary: Sendable, Hashable {
        public var checked = 0
        public var outcomes: [PaymentEvent.Outcome: Int] = [:]
        /// Checkouts the gateway could not be asked about (each is asked again later).
        public var errors: [String] = []

        public init() {}
    }

    /// Reads back the payments not yet settled whose check is due (at most `limit`), and applies what the gateway
    /// says: a webhook that never came loses no payment, one that came sells nothing twice, and a "failed" that
    /// came before the money was taken is put right. A checkout still open a day after its creation is ended at
    /// the gateway. Each payment is next checked later and later (``checkBackoff(_:first:)``) until a read-back
    /// settles it.
    public func reconcileDue(limit: Int = 50) async throws -> ReconcileSummary {
        let checkAfter = checkAfter
        let due = try await store.claimDuePayments(now: cards.now(), limit: limit) { Self.checkBackoff($0, first: checkAfter) }
        var summary = ReconcileSummary()
        for payment in due {
            do {
                let outcome = try await reconcile(payment)
                summary.checked += 1
                summary.outcomes[outcome, default: 0] += 1
            } catch {
                PaymentMetrics.reconcileFailed()
                summary.errors.append("payment \(payment.id.lowercasedText): \(error)")
            }
        }
        return summary
    }

    /// Reads `payment`'s checkout back now and applies what the gateway says (ending it first if it is a day old
    /// and still open).
    public func reconcile(_ payment: Payment) async throws -> PaymentEvent.Outcome {
        guard let checkoutID = payment.checkoutID else {
            throw MembershipError(.conflict, "Payment \(payment.id.lowercasedText) has no checkout yet.")
        }
        var observation = try await gateway.checkout(id: checkoutID)
        if !observation.status.isClosed, cards.now() - payment.createdAt >= Self.expireAfter {
            observation = try await gateway.expire(id: checkoutID)
        }
        return try await apply(observation, reported: observation.status.rawValue, source: .reconciler)
    }

    /// How long after its `checks`-th read-back an open payment is read back again: `first`, doubling, at most
    /// 6 hours.
    public static func checkBackoff(_ checks: Int, first: Int64) -> Int64 {
        min(first << Int64(min(max(checks - 1, 0), 20)), 6 * 3_600)
    }
}
