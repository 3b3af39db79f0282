public import Foundation
public import Membership
import PeezBasics

/// `POST /v1/members/{uuid}/checkouts`: the months a member pays for online, and how they pay. The amount is
/// the price list's, never the client's.
public struct CheckoutRequestBody: APIRequest {
    public var months: Int
    /// `edahabia` or `cib` (absent: the gateway's default, Edahabia).
    public var payment_method: String?
    /// The language of the gateway's page: `ar`, `en` or `fr` (absent: the gateway's default).
    public var locale: String?

    public static let paymentMethods = ["edahabia", "cib"]
    public static let locales = ["ar", "en", "fr"]

    public init(months: Int, payment_method: String? = nil, locale: String? = nil) {
        self.months = months
        self.payment_method = payment_method
        self.locale = locale
    }

    /// Names every field that is not one the gateway takes.
    public func validate() throws(MembershipError) {
        var fields: [String: String] = [:]
        if !Pricing.allowedMonths.contains(months) { fields["months"] = "must be 1, 2 or 3" }
        if let method = payment_method, !Self.paymentMethods.contains(method) { fields["payment_method"] = "must be edahabia or cib" }
        if let locale, !Self.locales.contains(locale) { fields["locale"] = "must be ar, en or fr" }
        guard fields.isEmpty else { throw MembershipError(.invalidFields, "The checkout is invalid.", fields: fields) }
    }
}

/// A member's online payment as the API shows it.
public struct PaymentBody: Codable, Sendable, Equatable {
    public var id: String
    public var member_uuid: String
    public var months: Int
    public var amount_dzd: Int
    /// `creating`, `pending`, `processing`, `paid`, `failed`, `canceled`, `expired` or `mismatched`.
    public var status: String
    public var checkout_id: String?
    /// The gateway's page the member pays on (absent until the checkout exists).
    public var checkout_url: String?
    public var livemode: Bool
    public var created_at: String
    public var updated_at: String
    /// The period the payment sold, once paid.
    public var period_id: String?
    public var paid_at: String?

    public init(_ payment: Payment) {
        id = payment.id.lowercasedText
        member_uuid = payment.memberUUID.lowercasedText
        months = payment.months
        amount_dzd = payment.amountDZD
        status = payment.status.rawValue
        checkout_id = payment.checkoutID
        checkout_url = payment.checkoutURL
        livemode = payment.livemode
        created_at = AlgiersCalendar.iso8601(payment.createdAt)
        updated_at = AlgiersCalendar.iso8601(payment.updatedAt)
        period_id = payment.periodID?.lowercasedText
        paid_at = payment.paidAt.map(AlgiersCalendar.iso8601)
    }
}

/// `GET /v1/payments`: payments newest first.
public struct PaymentListBody: Codable, Sendable {
    public var payments: [PaymentBody]

    public init(payments: [PaymentBody]) {
        self.payments = payments
    }
}

/// One thing the gateway said, as `GET /v1/payments/events` shows it.
public struct PaymentEventBody: Codable, Sendable, Equatable {
    public var seq: Int64
    public var at: String
    public var source: String
    public var checkout_id: String
    public var reported: String
    public var payment_id: String?
    public var outcome: String
    public var detail: String
    public var needs_attention: Bool

    public init(_ event: PaymentEvent) {
        seq = event.seq
        at = AlgiersCalendar.iso8601(event.at)
        source = event.source.rawValue
        checkout_id = event.checkoutID
        reported = event.reported
        payment_id = event.paymentID?.lowercasedText
        outcome = event.outcome.rawValue
        detail = event.detail
        needs_attention = event.outcome.needsAttention
    }
}

/// `GET /v1/payments/events`.
public struct PaymentEventListBody: Codable, Sendable {
    public var events: [PaymentEventBody]

    public init(events: [PaymentEventBody]) {
        self.events = events
    }
}
