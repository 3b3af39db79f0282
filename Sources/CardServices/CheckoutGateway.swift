public import Foundation
public import Membership

/// A payment gateway's hosted checkouts (Chargily Pay), as the payment use cases need them: create one, read one
/// back, end one, and tell a webhook it sent from a forged one.
public protocol CheckoutGateway: Sendable {
    /// Whether the gateway's checkouts are real payments (live mode) rather than tests.
    var livemode: Bool { get }
    /// Creates a checkout for `request`; throws ``CheckoutGatewayError``.
    func createCheckout(_ request: CheckoutCreation) async throws -> CreatedCheckout
    /// The checkout `id` as the gateway has it now; throws ``CheckoutGatewayError``.
    func checkout(id: String) async throws -> CheckoutObservation
    /// Ends a checkout nobody paid; answers it as it then stands. Throws ``CheckoutGatewayError``.
    func expire(id: String) async throws -> CheckoutObservation
    /// The webhook whose raw body is `body` and whose signature header is `signature`, once its signature is
    /// checked over the raw bytes (before anything in them is read). Throws ``WebhookRefusal``.
    func verifiedEvent(body: [UInt8], signature: String?) throws(WebhookRefusal) -> GatewayEvent
}

/// A checkout to create: what it charges and where the member goes afterwards.
public struct CheckoutCreation: Sendable, Hashable {
    public var paymentID: UUID
    public var amountDZD: Int
    public var description: String
    /// `edahabia` or `cib` (nil: the gateway's default).
    public var paymentMethod: String?
    /// `ar`, `en` or `fr` (nil: the gateway's default).
    public var locale: String?

    public init(paymentID: UUID, amountDZD: Int, description: String, paymentMethod: String?, locale: String?) {
        self.paymentID = paymentID
        self.amountDZD = amountDZD
        self.description = description
        self.paymentMethod = paymentMethod
        self.locale = locale
    }
}

/// A checkout the gateway created: its id and the page the member pays on.
public struct CreatedCheckout: Sendable, Hashable {
    public var id: String
    public var url: String
    public var livemode: Bool

    public init(id: String, url: String, livemode: Bool) {
        self.id = id
        self.url = url
        self.livemode = livemode
    }
}

/// A webhook, verified: its type as the gateway named it (`checkout.paid`), and the checkout it carries.
public struct GatewayEvent: Sendable, Hashable {
    public var type: String
    public var checkout: CheckoutObservation

    public init(type: String, checkout: CheckoutObservation) {
        self.type = type
        self.checkout = checkout
    }
}

/// The gateway could not be used: unreachable, slow, refusing our key, or answering what it should not.
public struct CheckoutGatewayError: Error, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// No answer, or a 5xx: it may work in a moment.
        case unavailable
        /// The gateway refused the request (4xx): retrying it as it is will not help.
        case refused
        /// An answer that is not the gateway's documented shape.
        case malformed
        /// No such checkout.
        case notFound = "not_found"
    }

    public var kind: Kind
    public var reason: String

    public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    public var description: String { reason }
}

/// Why a webhook was refused before anything in it was believed.
public enum WebhookRefusal: Error, Hashable, CustomStringConvertible {
    /// No signature header.
    case unsigned
    /// A signature that is not the body's under our key.
    case badSignature
    /// Signed, but not an event the gateway documents.
    case malformed(String)

    public var description: String {
        switch self {
        case .unsigned: "the webhook has no signature header"
        case .badSignature: "the webhook's signature is not its body's under the secret key"
        case .malformed(let why): "the webhook is signed but not a checkout event: \(why)"
        }
    }
}
