public import Foundation
public import Membership

// Credentials' lifecycle, one-time enrolment codes, the audit trail and refused sales.
extension SQLMembershipStore {
    private var credentialColumns: String { CredentialRecord.columns.joined(separator: ", ") }

    public func vendors() async throws -> [Vendor] {
        try await database.read { db in
            try await db.query("SELECT \(VendorRecord.columns.joined(separator: ", ")) FROM vendors ORDER BY created_at, id", []).map(
                VendorRecord.vendor
            )
        }
    }

    public func credential(id: UUID) async throws -> APICredential? {
        try await database.read { db in
            try await db.query("SELECT \(credentialColumns) FROM credentials WHERE id = ?", [.text(id.uuidString)]).first.map(
                CredentialRecord.credential
            )
        }
    }

    public func credentials(role: Role?, vendorID: UUID?) async throws -> [APICredential] {
        var conditions: [String] = []
        var binds: [SQLValue] = []
        if let role {
            conditions.append("role = ?")
            binds.append(.text(role.rawValue))
        }
        if let vendorID {
            conditions.append("vendor_id = ?")
            binds.append(.text(vendorID.uuidString))
        }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        return try await database.read { [binds, credentialColumns] db in
            try await db.query("SELECT \(credentialColumns) FROM credentials\(filter) ORDER BY created_at, id", binds).map(
                CredentialRecord.credential
            )
        }
    }

    public func noteCredentialUse(id: UUID, hour: Int64) async throws {
        // Not durable: a use lost in a crash is only a coarser trail.
        _ = try await database.writeStatement(
            "UPDATE credentials SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?) RETURNING id",
            [.int(hour), .text(id.uuidString), .int(hour)],
            durable: false
        )
    }

    public func onCredentialChange(_ handler: @escaping @Sendable (_ secretHash: String?) -> Void) {
        database.memberChanges?.subscribe { event in
            switch event {
            case .credentialChanged(let hash): handler(hash)
            case .listening: handler(nil)
            case .changed, .interrupted: break
            }
        }
    }

    // MARK: Audit trail and refused sales

    @discardableResult
    public func appendAudit(_ entry: AuditEntry) async throws -> AuditEntry {
        let insert = AuditRecord.insert(entry)
        let rows = try await database.writeStatement(insert.sql + " RETURNING seq", insert.binds)
        var stored = entry
        stored.seq = try rows.first?.int("seq") ?? 0
        return stored
    }

    public func audit(after seq: Int64, limit: Int) async throws -> [AuditEntry] {
        try await database.read { db in
            try await db.query(
                "SELECT \(AuditRecord.columns.joined(separator: ", ")) FROM audit_log WHERE seq > ? ORDER BY seq LIMIT ?",
                [.int(seq), .int(Int64(limit))]
            )
            .map(AuditRecord.entry)
        }
    }

    public func recordRefusedSale(_ sale: RefusedSale, keyScope: String, maxPerCredential: Int) async throws {
        let values = RefusedSaleRecord.values(sale)
        try await database.write { db in
            try await db.execute(
                """
                INSERT INTO refused_sales (\(RefusedSaleRecord.columns.joined(separator: ", ")))
                SELECT \(values.map { _ in "?" }.joined(separator: ", "))
                WHERE NOT EXISTS (SELECT 1 FROM idempotency_keys WHERE scope = ? AND key = ? AND state = 'done')
                    AND (SELECT COUNT(*) FROM refused_sales WHERE credential_id = ?) < ?
                ON CONFLICT (credential_id, idempotency_key) DO NOTHING
                """,
                values + [.text(keyScope), .text(sale.idempotencyKey), .text(sale.credentialID.uuidString), .int(Int64(maxPerCredential))]
            )
        }
    }

    public func refusedSales(before seq: Int64?, limit: Int) async throws -> [RefusedSale] {
        try await database.read { db in
            try await db.query(
                "SELECT seq, \(RefusedSaleRecord.columns.joined(separator: ", ")) FROM refused_sales WHERE seq < ? ORDER BY seq DESC LIMIT ?",
                [.int(seq ?? .max), .int(Int64(limit))]
            )
            .map(RefusedSaleRecord.sale)
        }
    }
}
