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

    public func renameCredential(id: UUID, label: String) async throws -> Bool {
        try await !database.writeStatement("UPDATE credentials SET label = ? WHERE id = ? RETURNING id", [.text(label), .text(id.uuidString)]).isEmpty
    }

    public func revokeCredential(id: UUID, now: Int64) async throws -> Bool {
        try await !database.writeStatement(
            "UPDATE credentials SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? RETURNING id",
            [.int(now), .text(id.uuidString)]
        ).isEmpty
    }

    public func expireCredential(id: UUID, at time: Int64) async throws -> Bool {
        try await !database.writeStatement(
            "UPDATE credentials SET expires_at = CASE WHEN expires_at IS NULL OR expires_at > ? THEN ? ELSE expires_at END WHERE id = ? RETURNING id",
            [.int(time), .int(time), .text(id.uuidString)]
        ).isEmpty
    }

    public func noteCredentialUse(id: UUID, hour: Int64) async throws {
        // Not durable: a use lost in a crash is only a coarser trail.
        _ = try await database.writeStatement(
            "UPDATE credentials SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?) RETURNING id",
            [.int(hour), .text(id.uuidString), .int(hour)],
            durable: false
        )
    }

    // MARK: Enrolment codes

    public func saveEnrolmentCode(_ code: EnrolmentCode) async throws {
        _ = try await database.writeStatement(
            "INSERT INTO enrolment_codes (code_hash, vendor_id, created_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?) RETURNING code_hash",
            [.text(code.codeHash), .text(code.vendorID.uuidString), .text(code.createdBy), .int(code.createdAt), .int(code.expiresAt)]
        )
    }

    public func redeemEnrolmentCode(hash: String, now: Int64, credential: APICredential) async throws -> Result<APICredential, EnrolmentRefusal> {
        try await database.write { db in
            // Taken only while unused, unexpired and not withdrawn: one statement decides, so two devices with one
            // code cannot both pass.
            let taken = try await db.query(
                """
                UPDATE enrolment_codes SET used_at = ?, credential_id = ?
                WHERE code_hash = ? AND used_at IS NULL AND withdrawn_at IS NULL AND expires_at > ?
                RETURNING vendor_id
                """,
                [.int(now), .text(credential.id.uuidString), .text(hash), .int(now)]
            )
            guard let row = taken.first else {
                let found = try await db.query("SELECT used_at, withdrawn_at, expires_at FROM enrolment_codes WHERE code_hash = ?", [.text(hash)])
                guard let code = found.first else { return .failure(.unknown) }
                if try code.optionalInt("used_at") != nil { return .failure(.used) }
                if try code.optionalInt("withdrawn_at") != nil { return .failure(.revoked) }
                return .failure(.expired)
            }
            var stored = credential
            stored.vendorID = try RowReader(row: row, table: "enrolment_codes").uuid("vendor_id")
            let insert = CredentialRecord.insert(stored)
            try await db.execute(insert.sql, insert.binds)
            return .success(stored)
        }
    }

    public func withdrawEnrolmentCodes(vendorID: UUID, now: Int64) async throws -> Int {
        try await database.writeStatement(
            "UPDATE enrolment_codes SET withdrawn_at = ? WHERE vendor_id = ? AND used_at IS NULL AND withdrawn_at IS NULL RETURNING code_hash",
            [.int(now), .text(vendorID.uuidString)]
        ).count
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

    public func recordRefusedSale(_ sale: RefusedSale) async throws {
        let insert = RefusedSaleRecord.insert(sale)
        try await database.write { db in try await db.execute(insert.sql + " ON CONFLICT (credential_id, idempotency_key) DO NOTHING", insert.binds) }
    }

    public func refusedSales(limit: Int) async throws -> [RefusedSale] {
        try await database.read { db in
            try await db.query(
                "SELECT \(RefusedSaleRecord.columns.joined(separator: ", ")) FROM refused_sales ORDER BY seq DESC LIMIT ?",
                [.int(Int64(limit))]
            )
            .map(RefusedSaleRecord.sale)
        }
    }
}
