public import Foundation
public import Membership
import PeezBasics

/// The shops' cash accounts: sales and cancellations append their entries in their own transactions (see
/// ``ShopAccountRows``); the team's entries, commissions and every read are here.
extension SQLMembershipStore {
    public func recordTeamEntry(_ draft: TeamEntryDraft, now: Int64) async throws -> (entry: ShopEntry, replayed: Bool) {
        do {
            return try await recordTeamEntryOnce(draft, now: now)
        } catch let error as SQLError where error.code == .uniqueViolation {
            // Another request with the same key (for another shop) committed first: its record now answers.
            return try await recordTeamEntryOnce(draft, now: now)
        }
    }

    private func recordTeamEntryOnce(_ draft: TeamEntryDraft, now: Int64) async throws -> (entry: ShopEntry, replayed: Bool) {
        let vendor = draft.vendorID.uuidString
        return try await database.write { db in
            guard try await !db.query("SELECT id FROM vendors WHERE id = ?", [.text(vendor)]).isEmpty else {
                throw MembershipError(.notFound, "No shop has id \(draft.vendorID.lowercasedText).")
            }
            // Taken first, so the key and the balance below are read once the shop's other team entries committed.
            try await db.execute(
                """
                INSERT INTO shop_accounts (vendor_id, team_entries) VALUES (?, 1)
                ON CONFLICT (vendor_id) DO UPDATE SET team_entries = shop_accounts.team_entries + 1
                """,
                [.text(vendor)]
            )
            let key = draft.key
            if let row = try await db.query(
                "SELECT request_hash, state, response_body FROM idempotency_keys WHERE scope = ? AND key = ?",
                [.text(key.scope), .text(key.key)]
            ).first {
                guard try row.text("request_hash") == key.requestHash, try row.text("state") == "done",
                    let seq = Int64(String(decoding: try row.blob("response_body"), as: UTF8.self)),
                    let entry = try await Self.shopEntry(seq, db)
                else {
                    throw MembershipError(.idempotencyKeyReused, "This Idempotency-Key was used for another request; use a new key for a new entry.")
                }
                return (entry, true)
            }
            let entry = try await Self.teamEntry(draft, now: now, db)
            let rows = try await db.query(
                """
                INSERT INTO shop_entries (vendor_id, kind, recorded_at, day, amount_dzd, commission_dzd, months, method, reference,
                    received_by, reason, reverses_seq, recorded_by)
                VALUES (?, ?, ?, ?, ?, 0, 0, ?, ?, ?, ?, ?, ?) RETURNING seq
                """,
                [
                    .text(vendor), .text(entry.kind.rawValue), .int(now), .int(entry.day), .int(entry.amountDZD),
                    entry.method.map { .text($0.rawValue) } ?? .null, entry.reference.map(SQLValue.text) ?? .null,
                    entry.receivedBy.map(SQLValue.text) ?? .null, entry.reason.map(SQLValue.text) ?? .null,
                    entry.reverses.map(SQLValue.int) ?? .null, .text(draft.recordedBy),
                ]
            )
            guard let seq = try rows.first?.int("seq") else { throw SQLError.unexpectedValue("shop_entries.seq") }
            var audit = draft.audit
            audit.detail += " (entry \(seq))"
            audit.values = (audit.values ?? []) + [AuditValue("entry", String(seq))]
            for statement in [
                ShopAccountRows.appendFigures(where: "seq = ?", [.int(seq)]),
                SQLStatement(
                    "INSERT INTO idempotency_keys (scope, key, request_hash, state, response_body, created_at) VALUES (?, ?, ?, 'done', ?, ?)",
                    [.text(key.scope), .text(key.key), .text(key.requestHash), .blob(Array(String(seq).utf8)), .int(now)]
                ),
                AuditRecord.insert(audit),
            ] {
                try await db.run(statement)
            }
            var recorded = entry
            recorded.seq = seq
            recorded.recordedAt = now
            recorded.recordedBy = draft.recordedBy
            return (recorded, false)
        }
    }

    /// The entry `draft` asks for, checked against the shop's account as it stands (seq not yet given).
    private static func teamEntry(_ draft: TeamEntryDraft, now: Int64, _ db: any SQLExecutor) async throws -> ShopEntry {
        let today = AlgiersCalendar.dayNumber(now)
        var entry = ShopEntry(seq: 0, vendorID: draft.vendorID, kind: .adjustment, recordedAt: now, day: today, amountDZD: 0)
        switch draft.body {
        case .remittance(let amount, let receivedDay, let method, let reference, let receivedBy, let override):
            let owed = try await balance(of: draft.vendorID, before: nil, db)
            if amount > owed, !override {
                throw MembershipError(
                    .invalidFields,
                    "The remittance is more than the shop owes.",
                    fields: ["amount_dzd": "is more than the \(owed) DZD the shop owes; send \"override\": true if it truly handed over more"]
                )
            }
            entry.kind = .remittance
            entry.amountDZD = -amount
            entry.day = receivedDay
            (entry.method, entry.reference, entry.receivedBy) = (method, reference, receivedBy)
        case .adjustment(let amount, let reason):
            entry.amountDZD = amount
            entry.reason = reason
        case .reversal(let seq, let reason):
            guard let reversed = try await shopEntry(seq, db), reversed.vendorID == draft.vendorID else {
                throw MembershipError(.notFound, "The shop has no entry \(seq).")
            }
            guard reversed.kind == .remittance || reversed.kind == .adjustment else {
                throw MembershipError(
                    .invalidFields,
                    "Only a remittance or an adjustment can be reversed.",
                    fields: ["entry": "is a \(reversed.kind.rawValue); a sale is taken back by cancelling it, a reversal by a new entry"]
                )
            }
            if let by = try await db.query("SELECT seq FROM shop_entries WHERE reverses_seq = ?", [.int(seq)]).first {
                throw MembershipError(.conflict, "Entry \(seq) was reversed already, by entry \(try by.int("seq")).")
            }
            entry.kind = .reversal
            entry.amountDZD = -reversed.amountDZD
            entry.reason = reason
            entry.reverses = seq
        }
        return entry
    }

    static func shopEntry(_ seq: Int64, _ db: any SQLExecutor) async throws -> ShopEntry? {
        try await db.query("SELECT \(ShopAccountRows.entryColumns) FROM shop_entries WHERE seq = ?", [.int(seq)]).first.map(ShopAccountRows.entry)
    }

    static func balance(of vendor: UUID, before day: Int64?, _ db: any SQLExecutor) async throws -> Int64 {
        try await db.query(ShopAccountRows.balance(of: vendor, before: day)).first?.int("balance") ?? 0
    }

    public func shopBalance(of vendorID: UUID, before day: Int64) async throws -> Int64 {
        try await database.read { db in try await Self.balance(of: vendorID, before: day, db) }
    }

    public func shopDays(of vendorID: UUID, from fromDay: Int64, to toDay: Int64) async throws -> [ShopDayFigures] {
        try await database.read { db in try await db.query(ShopAccountRows.days(of: vendorID, from: fromDay, to: toDay)).map(ShopAccountRows.figures)
        }
    }

    public func shopEntries(of vendorID: UUID, from fromDay: Int64, to toDay: Int64, kinds: Set<ShopEntry.Kind>) async throws -> [ShopEntry] {
        let names = kinds.map(\.rawValue).sorted()
        guard !names.isEmpty else { return [] }
        return try await database.read { db in
            try await db.query(
                """
                SELECT \(ShopAccountRows.entryColumns) FROM shop_entries
                WHERE vendor_id = ? AND day >= ? AND day <= ? AND kind IN (\(names.map { _ in "?" }.joined(separator: ", ")))
                ORDER BY day, seq
                """,
                [.text(vendorID.uuidString), .int(fromDay), .int(toDay)] + names.map(SQLValue.text)
            ).map(ShopAccountRows.entry)
        }
    }

    public func shopEntries(of vendorID: UUID, after seq: Int64, limit: Int) async throws -> [ShopEntry] {
        try await database.read { db in
            try await db.query(
                "SELECT \(ShopAccountRows.entryColumns) FROM shop_entries WHERE vendor_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                [.text(vendorID.uuidString), .int(seq), .int(Int64(limit))]
            ).map(ShopAccountRows.entry)
        }
    }

    public func shopBalances() async throws -> [ShopBalance] {
        try await database.readReport { db in try await ShopBalanceReading(db: db).balances() }
    }

    public func shopBalanceHistory(
        from fromDay: Int64,
        to toDay: Int64,
        owingMost count: Int
    ) async throws -> [UUID: [(day: Int64, balanceDZD: Int64)]] {
        try await database.readReport { db in try await ShopBalanceReading(db: db).history(from: fromDay, to: toDay, owingMost: count) }
    }

    public func setCommission(_ commission: ShopCommission, of vendorID: UUID, audit: AuditEntry) async throws {
        try await database.write { db in
            guard try await !db.query("SELECT id FROM vendors WHERE id = ?", [.text(vendorID.uuidString)]).isEmpty else {
                throw MembershipError(.notFound, "No shop has id \(vendorID.lowercasedText).")
            }
            for statement in [
                SQLStatement(
                    """
                    INSERT INTO shop_commissions (vendor_id, from_day, basis_points, per_month_dzd, set_at, set_by) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (vendor_id, from_day) DO UPDATE SET basis_points = excluded.basis_points,
                        per_month_dzd = excluded.per_month_dzd, set_at = excluded.set_at, set_by = excluded.set_by
                    """,
                    [
                        .text(vendorID.uuidString), .int(commission.fromDay), .int(commission.basisPoints), .int(commission.perMonthDZD),
                        .int(commission.setAt), .text(commission.setBy),
                    ]
                ),
                AuditRecord.insert(audit),
            ] {
                try await db.run(statement)
            }
        }
    }

    public func commissions(of vendorID: UUID) async throws -> [ShopCommission] {
        try await database.read { db in
            try await db.query(
                "SELECT from_day, basis_points, per_month_dzd, set_at, set_by FROM shop_commissions WHERE vendor_id = ? ORDER BY from_day",
                [.text(vendorID.uuidString)]
            ).map { row in
                ShopCommission(
                    fromDay: try row.int("from_day"),
                    basisPoints: try row.int("basis_points"),
                    perMonthDZD: try row.int("per_month_dzd"),
                    setAt: try row.int("set_at"),
                    setBy: try row.text("set_by")
                )
            }
        }
    }

    public func balanceLimit() async throws -> Int64? {
        try await database.read { db in try await db.query("SELECT limit_dzd FROM shop_balance_limit", []).first?.int("limit_dzd") }
    }

    public func setBalanceLimit(_ limitDZD: Int64?, audit: AuditEntry) async throws {
        try await database.write { db in
            try await db.run(
                limitDZD.map {
                    SQLStatement(
                        "INSERT INTO shop_balance_limit (one, limit_dzd) VALUES (1, ?) ON CONFLICT (one) DO UPDATE SET limit_dzd = excluded.limit_dzd",
                        [.int($0)]
                    )
                } ?? SQLStatement("DELETE FROM shop_balance_limit", [])
            )
            try await db.run(AuditRecord.insert(audit))
        }
    }

    /// Computes every shop's days again from its entries, in one transaction.
    public func rebuildShopAccounts() async throws {
        try await database.write { db in
            for statement in ShopAccountRows.rebuildStatements { try await db.execute(statement) }
        }
    }

    /// Writes the entries of sales and cancellations loaded in bulk (straight into `periods`), then every shop's
    /// days, in one transaction.
    public func accountBulkLoadedSales() async throws {
        try await database.write { db in
            for statement in ShopAccountRows.entriesForUnaccountedSales + ShopAccountRows.rebuildStatements { try await db.execute(statement) }
        }
    }

    /// Every shop's days as the ledger's periods and the team's entries say they should be, computed from those
    /// rows alone (not from the accounts' entries for sales): what each shop's account must equal.
    public func shopDaysFromLedger() async throws -> [UUID: [ShopDayFigures]] {
        try await database.readReport { db in
            var days: [UUID: [ShopDayFigures]] = [:]
            for row in try await db.query(ShopAccountRows.daysFromLedgerQuery, []) {
                days[try RowReader(row: row, table: "periods").uuid("vendor_id"), default: []].append(try ShopAccountRows.figures(row))
            }
            return days
        }
    }
}
