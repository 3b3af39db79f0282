public import Foundation
public import Membership
import PeezBasics

/// Online payments: each change made in one transaction with the payment's status it depends on, read under the
/// row's lock (PostgreSQL's `FOR UPDATE`; SQLite's one writer).
extension SQLMembershipStore {
    public func beginPayment(_ draft: Payment) async throws -> (payment: Payment, created: Bool) {
        try await database.write { db in
            try await db.run(PaymentRecord.insert(draft))
            guard
                let row = try await db.query(
                    "SELECT \(PaymentRecord.selected) FROM payments WHERE key_scope = ? AND idempotency_key = ?",
                    [.text(draft.keyScope), .text(draft.idempotencyKey)]
                ).first
            else { throw SQLError.unexpectedValue("payments.idempotency_key") }
            let payment = try PaymentRecord.payment(row)
            return (payment, payment.id == draft.id)
        }
    }

    public func takeOverCreation(of id: UUID, stuckSince: Int64, now: Int64) async throws -> Bool {
        let rows = try await database.writeStatement(
            "UPDATE payments SET updated_at = ? WHERE id = ? AND status = 'creating' AND updated_at <= ? RETURNING id",
            [.int(now), .text(id.uuidString), .int(stuckSince)]
        )
        return !rows.isEmpty
    }

    public func attachCheckout(to id: UUID, checkoutID: String, checkoutURL: String, livemode: Bool, now: Int64) async throws -> Payment? {
        let rows = try await database.writeStatement(
            """
            UPDATE payments SET status = 'pending', checkout_id = ?, checkout_url = ?, livemode = ?, updated_at = ?
            WHERE id = ? AND status = 'creating' RETURNING \(PaymentRecord.selected)
            """,
            [.text(checkoutID), .text(checkoutURL), .int(livemode ? 1 : 0), .int(now), .text(id.uuidString)]
        )
        return try rows.first.map(PaymentRecord.payment)
    }

    public func discardCreation(of id: UUID) async throws {
        _ = try await database.writeStatement("DELETE FROM payments WHERE id = ? AND status = 'creating'", [.text(id.uuidString)])
    }

    public func payment(id: UUID) async throws -> Payment? {
        try await onePayment(where: "id = ?", .text(id.uuidString))
    }

    public func payment(checkoutID: String) async throws -> Payment? {
        try await onePayment(where: "checkout_id = ?", .text(checkoutID))
    }

    private func onePayment(where condition: String, _ bind: SQLValue) async throws -> Payment? {
        try await database.read { db in
            try await db.query("SELECT \(PaymentRecord.selected) FROM payments WHERE \(condition)", [bind]).first.map(PaymentRecord.payment)
        }
    }

    public func payments(status: PaymentStatus?, limit: Int) async throws -> [Payment] {
        let (condition, binds): (String, [SQLValue]) = status.map { ("WHERE status = ?", [.text($0.rawValue)]) } ?? ("", [])
        return try await database.read { db in
            try await db.query(
                "SELECT \(PaymentRecord.selected) FROM payments \(condition) ORDER BY created_at DESC, id LIMIT ?",
                binds + [.int(Int64(limit))]
            ).map(PaymentRecord.payment)
        }
    }

    /// The payment `id` read under its row's lock, in the transaction `db` is in.
    private static func lockedPayment(_ db: any SQLExecutor, _ id: UUID, lock: String) async throws -> Payment? {
        try await db.query("SELECT \(PaymentRecord.selected) FROM payments WHERE id = ?\(lock)", [.text(id.uuidString)]).first.map(
            PaymentRecord.payment
        )
    }

    public func recordObservation(_ observation: CheckoutObservation, of paymentID: UUID, event: PaymentEvent) async throws -> PaymentTransition {
        let lock = self.lock
        return try await database.write { db in
            guard let payment = try await Self.lockedPayment(db, paymentID, lock: lock) else {
                throw MembershipError(.notFound, "No payment has the id \(paymentID.lowercasedText).")
            }
            var event = event
            var transition = PaymentTransition.of(payment, observing: observation)
            var status = payment.status
            switch transition {
            case .sell:
                // Selling takes the ledger's head and a card: the caller's `commitPaidCheckout`. Nothing is kept here.
                return transition
            case .move(let moved):
                status = moved
                event.outcome = .moved
                event.detail = "\(payment.status.rawValue) → \(moved.rawValue)"
            case .unchanged:
                event.outcome = .unchanged
                event.detail = "stays \(payment.status.rawValue)"
            case .mismatch(let why):
                status = .mismatched
                event.outcome = .mismatch
                event.detail = why
                transition = .mismatch(why)
            }
            // A read-back that finds the payment ended as the gateway has it settles it: no more read-backs.
            let settles = event.source == .reconciler && Payment.readBackSettles(observation, status: status)
            if status != payment.status || settles {
                try await db.execute(
                    "UPDATE payments SET status = ?, updated_at = ?, next_check_at = ? WHERE id = ?",
                    [
                        .text(status.rawValue), .int(status != payment.status ? event.at : payment.updatedAt),
                        .int(settles || status.isFinal ? Payment.settled : payment.nextCheckAt), .text(paymentID.uuidString),
                    ]
                )
            }
            try await db.run(PaymentEventRecord.insert(event))
            return transition
        }
    }

    public func commitPaidCheckout(
        _ sale: SaleRecord,
        expectedVersion: Int64,
        payment paymentID: UUID,
        event: PaymentEvent,
        audit: AuditEntry
    ) async throws -> Bool {
        let lock = self.lock
        let memberUUID = sale.period.memberUUID
        let sold: Bool
        do {
            sold = try await database.write { db in
                guard let payment = try await Self.lockedPayment(db, paymentID, lock: lock) else {
                    throw MembershipError(.notFound, "No payment has the id \(paymentID.lowercasedText).")
                }
                guard !payment.status.isFinal else {
                    var event = event
                    event.outcome = .unchanged
                    event.detail = "stays \(payment.status.rawValue)"
                    try await db.run(PaymentEventRecord.insert(event))
                    return false
                }
                for statement in Self.saleStatements(sale, expectedVersion: expectedVersion) { try await db.run(statement) }
                try await db.execute(
                    "UPDATE payments SET status = 'paid', period_id = ?, paid_at = ?, updated_at = ?, next_check_at = ? WHERE id = ?",
                    [
                        .text(sale.period.id.uuidString), .int(sale.recordedAt), .int(sale.recordedAt), .int(Payment.settled),
                        .text(paymentID.uuidString),
                    ]
                )
                try await db.run(PaymentEventRecord.insert(event))
                try await db.run(AuditRecord.insert(audit))
                return true
            }
        } catch let error as SQLError where Self.isConcurrentLedgerChange(error) {
            throw LedgerVersionConflict(memberUUID: memberUUID, expectedVersion: expectedVersion)
        }
        if sold { cardCache?.forget(memberUUID) }
        return sold
    }

    public func recordPaymentEvent(_ event: PaymentEvent) async throws {
        try await database.write { db in try await db.run(PaymentEventRecord.insert(event)) }
    }

    public func claimDuePayments(now: Int64, limit: Int, backoff: @Sendable (Int) -> Int64) async throws -> [Payment] {
        let lock = database.dialect.skipLockedClause
        return try await database.write { db in
            let due = try await db.query(
                """
                SELECT \(PaymentRecord.selected) FROM payments
                WHERE status NOT IN ('creating', 'paid', 'mismatched') AND next_check_at <= ? ORDER BY next_check_at LIMIT ?\(lock)
                """,
                [.int(now), .int(Int64(limit))]
            ).map(PaymentRecord.payment)
            for payment in due {
                try await db.execute(
                    "UPDATE payments SET checks = ?, next_check_at = ? WHERE id = ?",
                    [.int(Int64(payment.checks + 1)), .int(now + backoff(payment.checks + 1)), .text(payment.id.uuidString)]
                )
            }
            return due
        }
    }

    public func paymentEvents(needingAttention: Bool, checkoutID: String?, limit: Int) async throws -> [PaymentEvent] {
        var conditions = needingAttention ? ["outcome IN ('mismatch', 'unknown_checkout')"] : []
        var binds: [SQLValue] = []
        if let checkoutID {
            conditions.append("checkout_id = ?")
            binds.append(.text(checkoutID))
        }
        let condition = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let allBinds = binds + [.int(Int64(limit))]
        return try await database.read { db in
            try await db.query(
                "SELECT \(PaymentEventRecord.columns.joined(separator: ", ")) FROM payment_events \(condition) ORDER BY seq DESC LIMIT ?",
                allBinds
            ).map(PaymentEventRecord.event)
        }
    }

    public func paymentCounts() async throws -> [PaymentStatus: Int] {
        try await database.read { db in
            var counts: [PaymentStatus: Int] = [:]
            for row in try await db.query("SELECT status, COUNT(*) AS n FROM payments GROUP BY status", []) {
                guard let status = PaymentStatus(rawValue: try row.text("status")) else { throw SQLError.unexpectedValue("payments.status") }
                counts[status] = Int(try row.int("n"))
            }
            return counts
        }
    }

    public func paymentDays(from: Int64, to: Int64) async throws -> [PaymentDay] {
        let offset = AlgiersCalendar.utcOffset
        return try await database.readReport { db in
            try await db.query(
                """
                SELECT (created_at + \(offset)) / 86400 AS day, status, COUNT(*) AS n, CAST(SUM(amount_dzd) AS BIGINT) AS dzd FROM payments
                WHERE created_at >= ? AND created_at < ? GROUP BY (created_at + \(offset)) / 86400, status ORDER BY day, status
                """,
                [.int(from * 86_400 - offset), .int((to + 1) * 86_400 - offset)]
            ).map { row in
                guard let status = PaymentStatus(rawValue: try row.text("status")) else { throw SQLError.unexpectedValue("payments.status") }
                return PaymentDay(day: try row.int("day"), status: status, count: try row.int("n"), dzd: try row.int("dzd"))
            }
        }
    }

    public func unsettledPayments() async throws -> Int {
        try await database.read { db in
            Int(
                try await db.query(
                    "SELECT COUNT(*) AS n FROM payments WHERE status NOT IN ('creating', 'paid', 'mismatched') AND next_check_at < ?",
                    [.int(Payment.settled)]
                )[0].int("n")
            )
        }
    }
}
