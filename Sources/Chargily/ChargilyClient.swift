import AsyncHTTPClient
import CardCrypto
public import CardServices
import Foundation
public import Membership
public import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import PeezAPI

/// Chargily Pay v2 (https://dev.chargily.com/pay-v2): checkouts created, read back and expired over its API with
/// the secret key as a bearer token, and its webhooks checked against the same key.
public final class ChargilyClient: CheckoutGateway {
    public let configuration: ChargilyConfiguration
    private let client: HTTPClient
    /// How long one request to the API may take, its answer's body included.
    private let timeout: TimeAmount
    /// The most of an answer's body that is read: a checkout is a couple of kilobytes.
    static let maxAnswerBytes = 256 * 1_024
    /// The most of a webhook's body that is read.
    public static let maxWebhookBytes = 256 * 1_024

    public init(configuration: ChargilyConfiguration, timeout: TimeAmount = .seconds(15)) {
        self.configuration = configuration
        self.timeout = timeout
        client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5)))
        )
    }

    public var livemode: Bool { configuration.mode == .live }

    public func createCheckout(_ request: CheckoutCreation) async throws -> CreatedCheckout {
        let body = CheckoutCreationBody(
            amount: request.amountDZD,
            currency: "dzd",
            success_url: configuration.successURL,
            failure_url: configuration.failureURL,
            webhook_endpoint: configuration.webhookURL,
            description: request.description,
            locale: request.locale,
            payment_method: request.paymentMethod,
            metadata: [ChargilyCheckoutReading.paymentIDKey: request.paymentID.lowercasedText]
        )
        let object = try await call(.POST, "/checkouts", body: try JSONEncoder().encode(body))
        let observation = try read(object)
        // Chargily's API names the page `checkout_url`; its webhooks' copy of a checkout says `url`.
        guard case .string(let url)? = object["checkout_url"] ?? object["url"], URL(string: url)?.host != nil else {
            throw CheckoutGatewayError(.malformed, "Chargily created checkout \(observation.checkoutID) without a checkout_url")
        }
        return CreatedCheckout(id: observation.checkoutID, url: url, livemode: observation.livemode)
    }

    public func checkout(id: String) async throws -> CheckoutObservation {
        try read(try await call(.GET, "/checkouts/\(try Self.pathSegment(id))"))
    }

    public func expire(id: String) async throws -> CheckoutObservation {
        try read(try await call(.POST, "/checkouts/\(try Self.pathSegment(id))/expire"))
    }

    public func verifiedEvent(body: [UInt8], signature: String?) throws(WebhookRefusal) -> GatewayEvent {
        guard let signature, !signature.isEmpty else { throw .unsigned }
        guard HMACSHA256.isCode(hex: signature, of: body, key: Array(configuration.secretKey.utf8)) else { throw .badSignature }
        guard case .object(let event)? = JSONValue(parsing: body) else { throw .malformed("the body is not a JSON object") }
        guard case .string(let type)? = event["type"], Self.eventStatuses[type] != nil else {
            throw .malformed("its type is not one of \(Self.eventStatuses.keys.sorted().joined(separator: ", "))")
        }
        guard case .object(let data)? = event["data"] else { throw .malformed("it carries no checkout") }
        let checkout: CheckoutObservation
        do {
            checkout = try ChargilyCheckoutReading.observation(data)
        } catch {
            throw .malformed(error.description)
        }
        guard checkout.status == Self.eventStatuses[type] else {
            throw .malformed("a \(type) event for a checkout whose status is \(checkout.status.rawValue)")
        }
        return GatewayEvent(type: type, checkout: checkout)
    }

    /// The webhook events Chargily documents, and the checkout status each reports.
    static let eventStatuses: [String: PaymentStatus] = [
        "checkout.paid": .paid, "checkout.failed": .failed, "checkout.canceled": .canceled, "checkout.expired": .expired,
    ]

    private func read(_ object: [String: JSONValue]) throws -> CheckoutObservation {
        do {
            return try ChargilyCheckoutReading.observation(object)
        } catch {
            throw CheckoutGatewayError(.malformed, "Chargily answered a checkout that cannot be read: \(error)")
        }
    }

    /// A checkout id as one path segment: Chargily's are letters and digits.
    private static func pathSegment(_ id: String) throws -> String {
        guard (1...128).contains(id.utf8.count),
            id.utf8.allSatisfy({
                $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0)
                    || (0x61...0x7A).contains($0)
            })
        else { throw CheckoutGatewayError(.refused, "'\(id)' is not a Chargily checkout id") }
        return id
    }

    /// One API call: the answer's JSON object, or a ``CheckoutGatewayError`` saying what went wrong (the secret key
    /// never in it).
    private func call(_ method: HTTPMethod, _ path: String, body: Data? = nil) async throws -> [String: JSONValue] {
        var request = HTTPClientRequest(url: configuration.apiURL + path)
        request.method = method
        request.headers.add(name: "authorization", value: "Bearer \(configuration.secretKey)")
        request.headers.add(name: "accept", value: "application/json")
        if let body {
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: body))
        }
        let what = "\(method.rawValue) \(path)"
        let bytes: ByteBuffer
        let status: Int
        do {
            let response = try await client.execute(request, timeout: timeout)
            status = Int(response.status.code)
            bytes = try await response.body.collect(upTo: Self.maxAnswerBytes)
        } catch {
            throw CheckoutGatewayError(.unavailable, "Chargily did not answer \(what): \(error)")
        }
        let parsed = JSONValue(parsing: Array(buffer: bytes))
        switch status {
        case 200..<300:
            guard case .object(let object)? = parsed else { throw CheckoutGatewayError(.malformed, "Chargily answered \(what) with no JSON object") }
            return object
        case 404:
            throw CheckoutGatewayError(.notFound, "Chargily has no such checkout (\(what))")
        case 408, 429, 500..<600:
            throw CheckoutGatewayError(.unavailable, "Chargily answered \(what) with \(status)")
        default:
            var message = ""
            if case .object(let object)? = parsed, case .string(let text)? = object["message"] { message = ": " + String(text.prefix(300)) }
            throw CheckoutGatewayError(.refused, "Chargily refused \(what) with \(status)\(message)")
        }
    }

    /// Closes the connections; call once, after the last request.
    public func close() async {
        try? await client.shutdown()
    }
}

/// `POST /checkouts`'s body, with the fields Chargily documents that we use.
struct CheckoutCreationBody: Encodable {
    var amount: Int
    var currency: String
    var success_url: String
    var failure_url: String?
    var webhook_endpoint: String?
    var description: String
    var locale: String?
    var payment_method: String?
    var metadata: [String: String]
}
