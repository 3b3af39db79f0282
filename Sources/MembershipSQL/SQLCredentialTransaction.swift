public import Foundation
public import Membership

/// ``CredentialTransaction`` over one SQL transaction: reads lock their rows (`FOR UPDATE` where the database has
/// row locks; SQLite's writer is alone anyway), writes join the transaction.
struct SQLCredentialTransaction: CredentialTransaction {
    let db: any SQLExecutor
    /// ` FOR UPDATE`, or nothing.
    let lock: String

    private var columns: String { CredentialRecord.columns.joined(separator: ", ") }

    private func credentials(where condition: String, _ binds: [SQLValue]) async throws -> [APICredential] {
        try await db.query("SELECT \(columns) FROM credentials WHERE \(condition) ORDER BY id\(lock)", binds).map(CredentialRecord.credential)
    }

    func credential(id: UUID) async throws -> APICredential? {
        try await credentials(where: "id = ?", [.text(id.uuidString)]).first
    }

    func lastingAdmins() async throws -> [APICredential] {
        try await credentials(where: "role = 'admin' AND revoked_at IS NULL AND expires_at IS NULL", [])
    }

    func successors(of id: UUID) async throws -> [APICredential] {
        try await credentials(
            where: """
                id IN (WITH RECURSIVE chain (id) AS (
                    SELECT id FROM credentials WHERE replaces_id = ?
                    UNION SELECT c.id FROM credentials c JOIN chain ON c.replaces_id = chain.id)
                SELECT id FROM chain)
                """,
            [.text(id.uuidString)]
        )
    }

    func credentials(ofVendor vendorID: UUID) async throws -> [APICredential] {
        try await credentials(where: "vendor_id = ?", [.text(vendorID.uuidString)])
    }

    func vendorStanding(id: UUID) async throws -> VendorStanding? {
        try await db.query("SELECT cut_off_at FROM vendors WHERE id = ?\(lock)", [.text(id.uuidString)]).first.map {
            VendorStanding(cutOffAt: try $0.optionalInt("cut_off_at"))
        }
    }

    func insert(_ credential: APICredential) async throws {
        let insert = CredentialRecord.insert(credential)
        try await db.execute(insert.sql, insert.binds)
    }

    func insert(_ vendor: Vendor) async throws {
        let insert = VendorRecord.insert(vendor)
        try await db.execute(insert.sql, insert.binds)
    }

    func rename(credential id: UUID, label: String) async throws {
        try await db.execute("UPDATE credentials SET label = ? WHERE id = ?", [.text(label), .text(id.uuidString)])
    }

    func revoke(credentials ids: [UUID], at time: Int64) async throws {
        for id in ids {
            try await db.execute("UPDATE credentials SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?", [.int(time), .text(id.uuidString)])
        }
    }

    func expire(credential id: UUID, at time: Int64) async throws {
        try await db.execute(
            "UPDATE credentials SET expires_at = CASE WHEN expires_at IS NULL OR expires_at > ? THEN ? ELSE expires_at END WHERE id = ?",
            [.int(time), .int(time), .text(id.uuidString)]
        )
    }

    func insert(_ code: EnrolmentCode) async throws {
        try await db.execute(
            """
            INSERT INTO enrolment_codes (code_hash, vendor_id, created_by, created_by_credential_id, created_at, expires_at, label)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(code.codeHash), .text(code.vendorID.uuidString), .text(code.createdBy),
                code.createdByCredentialID.map { .text($0.uuidString) } ?? .null, .int(code.createdAt), .int(code.expiresAt),
                code.label.map { .text($0) } ?? .null,
            ]
        )
    }

    func enrolmentCode(hash: String, locking: Bool) async throws -> EnrolmentCode? {
        let rows = try await db.query(
            """
            SELECT code_hash, vendor_id, created_by, created_by_credential_id, created_at, expires_at, used_at, credential_id, withdrawn_at, label
            FROM enrolment_codes WHERE code_hash = ?\(locking ? lock : "")
            """,
            [.text(hash)]
        )
        return try rows.first.map { row in
            let read = RowReader(row: row, table: "enrolment_codes")
            var code = EnrolmentCode(
                codeHash: try read.text("code_hash"),
                vendorID: try read.uuid("vendor_id"),
                createdBy: try read.text("created_by"),
                createdByCredentialID: try read.optionalUUID("created_by_credential_id"),
                createdAt: try read.int("created_at"),
                expiresAt: try read.int("expires_at")
            )
            code.usedAt = try read.optionalInt("used_at")
            code.credentialID = try read.optionalUUID("credential_id")
            code.withdrawnAt = try read.optionalInt("withdrawn_at")
            code.label = try read.optionalText("label")
            return code
        }
    }

    func markUsed(code hash: String, at time: Int64, by credentialID: UUID) async throws {
        try await db.execute(
            "UPDATE enrolment_codes SET used_at = ?, credential_id = ? WHERE code_hash = ?",
            [.int(time), .text(credentialID.uuidString), .text(hash)]
        )
    }

    func withdrawCodes(ofVendor vendorID: UUID?, madeBy creators: [UUID], at time: Int64) async throws -> Int {
        var conditions = creators.map { _ in "created_by_credential_id = ?" }
        var binds: [SQLValue] = [.int(time)] + creators.map { .text($0.uuidString) }
        if let vendorID {
            conditions.append("vendor_id = ?")
            binds.append(.text(vendorID.uuidString))
        }
        guard !conditions.isEmpty else { return 0 }
        return try await db.query(
            """
            UPDATE enrolment_codes SET withdrawn_at = ?
            WHERE used_at IS NULL AND withdrawn_at IS NULL AND (\(conditions.joined(separator: " OR "))) RETURNING code_hash
            """,
            binds
        ).count
    }

    func markCutOff(vendor vendorID: UUID, at time: Int64) async throws {
        try await db.execute("UPDATE vendors SET cut_off_at = ? WHERE id = ?", [.int(time), .text(vendorID.uuidString)])
    }

    func appendAudit(_ entry: AuditEntry) async throws {
        let insert = AuditRecord.insert(entry)
        try await db.execute(insert.sql, insert.binds)
    }
}

extension SQLMembershipStore {
    /// How many times a credential transaction the database broke (a deadlock between two, which PostgreSQL
    /// resolves by failing one) is tried again.
    static let credentialAttempts = 5

    public func inCredentialTransaction<T: Sendable>(_ body: @Sendable (any CredentialTransaction) async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            do {
                return try await database.write { [lock] db in try await body(SQLCredentialTransaction(db: db, lock: lock)) }
            } catch let error as SQLError where error.code == .deadlock && attempt + 1 < Self.credentialAttempts {
                attempt += 1
            }
        }
    }
}
