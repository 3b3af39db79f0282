import CardServices
import Foundation
import Membership
import PeezAPI

/// Chargily's checkout object (as its API answers it and its webhooks carry it), read field by field: what the
/// payment's state machine needs, and nothing believed that is not there.
enum ChargilyCheckoutReading {
    /// The metadata key our payment's id travels under.
    static let paymentIDKey = "peez_payment_id"

    /// The checkout `object`; throws a description of what is missing or wrong.
    static func observation(_ object: [String: JSONValue]) throws(ChargilyReadError) -> CheckoutObservation {
        guard case .string(let id)? = object["id"], (1...128).contains(id.utf8.count) else { throw ChargilyReadError("no checkout id") }
        guard case .string(let statusText)? = object["status"], let status = PaymentStatus(gatewayStatus: statusText) else {
            throw ChargilyReadError("checkout \(id) has no status Chargily documents")
        }
        guard let amount = wholeDinars(object["amount"]) else { throw ChargilyReadError("checkout \(id) has no whole amount") }
        guard case .string(let currency)? = object["currency"] else { throw ChargilyReadError("checkout \(id) has no currency") }
        guard let livemode = flag(object["livemode"]) else { throw ChargilyReadError("checkout \(id) does not say its mode") }
        var paymentID: UUID?
        if case .object(let metadata)? = object["metadata"], case .string(let text)? = metadata[paymentIDKey] {
            paymentID = UUID(uuidString: text)
        }
        return CheckoutObservation(checkoutID: id, status: status, amount: amount, currency: currency, livemode: livemode, paymentID: paymentID)
    }

    /// An amount in whole dinars as Chargily may write it: 900, 900.0 or "900.00".
    static func wholeDinars(_ value: JSONValue?) -> Int? {
        switch value {
        case .integer(let number)?: return Int(exactly: number)
        case .number(let number)?: return number.rounded() == number && abs(number) < 1e12 ? Int(number) : nil
        case .string(let text)?: return Double(text).flatMap { $0.rounded() == $0 && abs($0) < 1e12 ? Int($0) : nil }
        default: return nil
        }
    }

    /// A flag as Chargily may send it: true/false, 1/0 or "true"/"false"/"1"/"0".
    static func flag(_ value: JSONValue?) -> Bool? {
        switch value {
        case .bool(let flag)?: return flag
        case .integer(let number)? where number == 0 || number == 1: return number == 1
        case .string(let text)?: return ["true": true, "1": true, "false": false, "0": false][text]
        default: return nil
        }
    }
}

extension PaymentStatus {
    /// A status as Chargily names a checkout's (`pending`, `processing`, `paid`, `failed`, `canceled`, `expired`).
    init?(gatewayStatus text: String) {
        switch text {
        case "pending": self = .pending
        case "processing": self = .processing
        case "paid": self = .paid
        case "failed": self = .failed
        case "canceled", "cancelled": self = .canceled
        case "expired": self = .expired
        default: return nil
        }
    }
}

/// Chargily answered something that is not its documented shape.
struct ChargilyReadError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
