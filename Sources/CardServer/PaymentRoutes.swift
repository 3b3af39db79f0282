import CardServices
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Membership
import PeezAPI

/// Members' online payments: the app's checkouts, the gateway's webhooks, and the payments as the team sees them.
///
/// `POST /v1/members/{uuid}/checkouts` (backend) needs an `Idempotency-Key`: the same key and body answer the same
/// checkout. `POST /v1/payments/chargily/webhook` takes no credential: its signature (the hex HMAC-SHA256 of the
/// raw body under the secret key) is checked before anything in it is read.
struct PaymentRoutes {
    /// Nil when no gateway is configured: checkouts and webhooks are then refused with 503.
    let payments: PaymentService?
    let store: any PaymentStore

    static let signatureHeader = HTTPField.Name("signature")!

    func register(on router: Router<ServerRequestContext>) {
        router.on("/v1/members/{uuid}/checkouts", method: .post, use: createCheckout)
        router.on("/v1/payments", method: .get, use: list)
        router.on("/v1/payments/events", method: .get, use: events)
        router.on("/v1/payments/{id}", method: .get, use: show)
        router.on("/v1/payments/chargily/webhook", method: .post, use: webhook)
    }

    private func configured() throws -> PaymentService {
        guard let payments else {
            throw APIError(
                .serviceUnavailable,
                code: "payments_unavailable",
                "Online payments are not configured on this service (PEEZ_CHARGILY_SECRET_KEY)."
            )
        }
        return payments
    }

    @Sendable func createCheckout(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let credential = try context.require(.backend, .admin)
        guard let member = UUID(strictText: context.parameters.get("uuid") ?? "") else {
            throw MembershipError(.notFound, "Member uuids are UUIDs.")
        }
        let key = try ActivationRoutes.idempotencyKey(request, purpose: "a retry cannot create a second checkout")
        let body = try await JSONExchange.decode(CheckoutRequestBody.self, request, context: context)
        let payments = try configured()
        let answer: PaymentService.CheckoutAnswer
        do {
            answer = try await payments.startCheckout(
                .init(memberUUID: member, body: body, keyScope: credential.id.uuidString, idempotencyKey: key)
            )
        } catch let error as CheckoutGatewayError {
            throw Self.apiError(error)
        }
        switch answer {
        case .created(let payment):
            return try JSONExchange.response(PaymentBody(payment), status: .created)
        case .replayed(let payment):
            return try JSONExchange.response(PaymentBody(payment), status: .created, headers: [ActivationRoutes.replayedHeader: "true"])
        }
    }

    /// A gateway failure as the app is answered: 502 when the gateway refused, 503 (retry) when it did not answer.
    static func apiError(_ error: CheckoutGatewayError) -> APIError {
        switch error.kind {
        case .unavailable, .malformed:
            APIError(.serviceUnavailable, code: "gateway_unavailable", "The payment gateway could not be reached; retry in a moment.")
        case .refused, .notFound:
            APIError(.badGateway, code: "gateway_refused", "The payment gateway refused the checkout: \(error.reason)")
        }
    }

    @Sendable func show(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try context.require(.backend, .admin)
        guard let id = UUID(strictText: context.parameters.get("id") ?? ""), let payment = try await store.payment(id: id) else {
            throw MembershipError(.notFound, "No payment has this id.")
        }
        return try JSONExchange.response(PaymentBody(payment))
    }

    @Sendable func list(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try context.require(.admin)
        let limit = try ActivationRoutes.limit(request.uri.queryParameters.get("limit"))
        var status: PaymentStatus?
        if let text = request.uri.queryParameters.get("status") {
            guard let parsed = PaymentStatus(rawValue: String(text)) else {
                throw APIError(
                    .unprocessableContent,
                    code: "invalid_fields",
                    "The query has invalid parameters.",
                    fields: ["status": "must be one of \(PaymentStatus.allCases.map(\.rawValue).joined(separator: ", "))"]
                )
            }
            status = parsed
        }
        let payments = try await store.payments(status: status, limit: limit)
        return try JSONExchange.response(PaymentListBody(payments: payments.map(PaymentBody.init)))
    }

    @Sendable func events(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try context.require(.admin)
        let limit = try ActivationRoutes.limit(request.uri.queryParameters.get("limit"))
        let attention: Bool
        switch request.uri.queryParameters.get("attention") {
        case nil, "false": attention = false
        case "true": attention = true
        default:
            throw APIError(
                .unprocessableContent,
                code: "invalid_fields",
                "The query has invalid parameters.",
                fields: ["attention": "must be true or false"]
            )
        }
        let checkout = request.uri.queryParameters.get("checkout_id").map { String($0) }
        let events = try await store.paymentEvents(needingAttention: attention, checkoutID: checkout, limit: limit)
        return try JSONExchange.response(PaymentEventListBody(events: events.map(PaymentEventBody.init)))
    }

    /// Chargily's webhook: 401 unsigned, 403 forged (nothing read, nothing changed), 400 signed but not a checkout
    /// event, 200 once applied (a duplicate or a late word changes nothing and is answered 200 too, so the gateway
    /// stops sending it), 503 while the database cannot record it (the gateway may send it again; the reconciler
    /// reads the checkout back anyway).
    @Sendable func webhook(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let payments = try configured()
        let body = try await JSONExchange.bodyBytes(request, context: context, limit: 64 * 1_024)
        let event: GatewayEvent
        do {
            event = try payments.gateway.verifiedEvent(body: body, signature: request.headers[Self.signatureHeader])
        } catch .unsigned {
            throw APIError(.unauthorized, code: "unauthenticated", "A webhook needs its signature header.")
        } catch .badSignature {
            context.logger.warning("a webhook with a wrong signature was refused", metadata: ["client": "\(context.clientAddress)"])
            throw APIError(.forbidden, code: "forbidden", "The webhook's signature does not match its body.")
        } catch .malformed(let why) {
            throw APIError.badRequest("The webhook is not a checkout event: \(why).")
        }
        let outcome = try await payments.apply(event.checkout, reported: event.type, source: .webhook)
        return try JSONExchange.response(["outcome": outcome.rawValue])
    }
}
