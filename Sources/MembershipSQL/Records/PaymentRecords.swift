import Foundation
import Membership

/// The `payments` table: its columns in one place, and a payment read from a row.
enum PaymentRecord {
    static let table = "payments"
    static let columns = [
        "id", "member_uuid", "months", "amount_dzd", "status", "checkout_id", "checkout_url", "livemode", "key_scope", "idempotency_key",
        "request_hash", "created_at", "updated_at", "period_id", "paid_at", "next_check_at", "checks",
    ]
    static let selected = columns.joined(separator: ", ")

    static func insert(_ payment: Payment) -> SQLStatement {
        SQLStatement(
            "INSERT INTO payments (\(selected)) VALUES (\(columns.map { _ in "?" }.joined(separator: ", "))) ON CONFLICT (key_scope, idempotency_key) DO NOTHING",
            [
                .text(payment.id.uuidString), .text(payment.memberUUID.uuidString), .int(Int64(payment.months)), .int(Int64(payment.amountDZD)),
                .text(payment.status.rawValue), payment.checkoutID.map(SQLValue.text) ?? .null, payment.checkoutURL.map(SQLValue.text) ?? .null,
                .int(payment.livemode ? 1 : 0), .text(payment.keyScope), .text(payment.idempotencyKey), .text(payment.requestHash),
                .int(payment.createdAt), .int(payment.updatedAt), payment.periodID.map { .text($0.uuidString) } ?? .null,
                payment.paidAt.map(SQLValue.int) ?? .null, .int(payment.nextCheckAt), .int(Int64(payment.checks)),
            ]
        )
    }

    static func payment(_ row: SQLRow) throws -> Payment {
        let read = RowReader(row: row, table: table)
        return Payment(
            id: try read.uuid("id"),
            memberUUID: try read.uuid("member_uuid"),
            months: Int(try read.int("months")),
            amountDZD: Int(try read.int("amount_dzd")),
            status: try read.value("status", as: PaymentStatus.self),
            checkoutID: try read.optionalText("checkout_id"),
            checkoutURL: try read.optionalText("checkout_url"),
            livemode: try read.int("livemode") != 0,
            keyScope: try read.text("key_scope"),
            idempotencyKey: try read.text("idempotency_key"),
            requestHash: try read.text("request_hash"),
            createdAt: try read.int("created_at"),
            updatedAt: try read.int("updated_at"),
            periodID: try read.optionalUUID("period_id"),
            paidAt: try read.optionalInt("paid_at"),
            nextCheckAt: try read.int("next_check_at"),
            checks: Int(try read.int("checks"))
        )
    }
}

/// The `payment_events` table.
enum PaymentEventRecord {
    static let table = "payment_events"
    static let columns = ["seq", "at", "source", "checkout_id", "reported", "payment_id", "outcome", "detail"]

    static func insert(_ event: PaymentEvent) -> SQLStatement {
        SQLStatement.insert(
            into: table,
            columns: Array(columns.dropFirst()),
            [
                .int(event.at), .text(event.source.rawValue), .text(event.checkoutID), .text(event.reported),
                event.paymentID.map { .text($0.uuidString) } ?? .null, .text(event.outcome.rawValue), .text(event.detail),
            ]
        )
    }

    static func event(_ row: SQLRow) throws -> PaymentEvent {
        let read = RowReader(row: row, table: table)
        return PaymentEvent(
            seq: try read.int("seq"),
            at: try read.int("at"),
            source: try read.value("source", as: PaymentEvent.Source.self),
            checkoutID: try read.text("checkout_id"),
            reported: try read.text("reported"),
            paymentID: try read.optionalUUID("payment_id"),
            outcome: try read.value("outcome", as: PaymentEvent.Outcome.self),
            detail: try read.text("detail")
        )
    }
}
