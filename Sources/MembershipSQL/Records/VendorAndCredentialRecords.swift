import Foundation
import Membership

/// The `vendors` table: its columns in one place, and a vendor read from a row.
enum VendorRecord {
    static let table = "vendors"
    static let columns = ["id", "name", "category", "neighbourhood", "created_at"]

    /// A vendor's values, in the order of ``columns``.
    static func values(_ vendor: Vendor) -> [SQLValue] {
        [.text(vendor.id.uuidString), .text(vendor.name), .text(vendor.category), .text(vendor.neighbourhood), .int(vendor.createdAt)]
    }

    static func insert(_ vendor: Vendor) -> SQLStatement { SQLStatement.insert(into: table, columns: columns, values(vendor)) }

    static func vendor(_ row: SQLRow) throws -> Vendor {
        let read = RowReader(row: row, table: table)
        return Vendor(
            id: try read.uuid("id"),
            name: try read.text("name"),
            category: try read.text("category"),
            neighbourhood: try read.text("neighbourhood"),
            createdAt: try read.int("created_at")
        )
    }
}

/// The `credentials` table: its columns in one place, and a credential read from a row.
enum CredentialRecord {
    static let table = "credentials"
    static let columns = [
        "id", "role", "vendor_id", "secret_hash", "label", "created_at", "created_by", "last_used_at", "revoked_at", "expires_at",
        "replaces_id",
    ]

    /// A credential's values, in the order of ``columns``.
    static func values(_ credential: APICredential) -> [SQLValue] {
        [
            .text(credential.id.uuidString), .text(credential.role.rawValue), credential.vendorID.map { .text($0.uuidString) } ?? .null,
            .text(credential.secretHash), .text(credential.label), .int(credential.createdAt), .text(credential.createdBy),
            credential.lastUsedAt.map { .int($0) } ?? .null, credential.revokedAt.map { .int($0) } ?? .null,
            credential.expiresAt.map { .int($0) } ?? .null, credential.replacesID.map { .text($0.uuidString) } ?? .null,
        ]
    }

    static func insert(_ credential: APICredential) -> SQLStatement { SQLStatement.insert(into: table, columns: columns, values(credential)) }

    static func credential(_ row: SQLRow) throws -> APICredential {
        let read = RowReader(row: row, table: table)
        return APICredential(
            id: try read.uuid("id"),
            role: try read.value("role", as: Role.self),
            vendorID: try read.optionalUUID("vendor_id"),
            secretHash: try read.text("secret_hash"),
            label: try read.text("label"),
            createdAt: try read.int("created_at"),
            createdBy: try read.text("created_by"),
            lastUsedAt: try read.optionalInt("last_used_at"),
            revokedAt: try read.optionalInt("revoked_at"),
            expiresAt: try read.optionalInt("expires_at"),
            replacesID: try read.optionalUUID("replaces_id")
        )
    }
}

/// The `audit_log` table.
enum AuditRecord {
    static let table = "audit_log"
    static let columns = ["seq", "at", "actor", "actor_credential_id", "address", "action", "target", "detail", "detail_values"]

    /// An entry's values for an insert (all but the seq, which the table gives); its detail's facts as a JSON
    /// array of `{"name", "value"}`.
    static func insert(_ entry: AuditEntry) -> SQLStatement {
        let values = entry.values.flatMap { try? JSONEncoder().encode($0) }.map { String(decoding: $0, as: UTF8.self) }
        return SQLStatement.insert(
            into: table,
            columns: Array(columns.dropFirst()),
            [
                .int(entry.at), .text(entry.actor), entry.actorCredentialID.map { .text($0.uuidString) } ?? .null, .text(entry.address),
                .text(entry.action), .text(entry.target), .text(entry.detail), values.map(SQLValue.text) ?? .null,
            ]
        )
    }

    static func entry(_ row: SQLRow) throws -> AuditEntry {
        let read = RowReader(row: row, table: table)
        return AuditEntry(
            seq: try read.int("seq"),
            at: try read.int("at"),
            actor: try read.text("actor"),
            actorCredentialID: try read.optionalUUID("actor_credential_id"),
            address: try read.text("address"),
            action: try read.text("action"),
            target: try read.text("target"),
            detail: try read.text("detail"),
            values: try read.optionalText("detail_values").map { text in
                guard let values = try? JSONDecoder().decode([AuditValue].self, from: Data(text.utf8)) else {
                    throw SQLError.unexpectedValue("\(table).detail_values")
                }
                return values
            }
        )
    }
}

/// The `refused_sales` table.
enum RefusedSaleRecord {
    static let table = "refused_sales"
    static let columns = ["at", "credential_id", "vendor_id", "idempotency_key", "membership_id", "months", "amount_dzd", "reason"]

    /// A refused sale's values, in the order of ``columns``.
    static func values(_ sale: RefusedSale) -> [SQLValue] {
        [
            .int(sale.at), .text(sale.credentialID.uuidString), sale.vendorID.map { .text($0.uuidString) } ?? .null,
            .text(sale.idempotencyKey), sale.membershipID.map { .text($0) } ?? .null, sale.months.map { .int(Int64($0)) } ?? .null,
            sale.amountDZD.map { .int(Int64($0)) } ?? .null, .text(sale.reason),
        ]
    }

    static func sale(_ row: SQLRow) throws -> RefusedSale {
        let read = RowReader(row: row, table: table)
        return RefusedSale(
            at: try read.int("at"),
            credentialID: try read.uuid("credential_id"),
            vendorID: try read.optionalUUID("vendor_id"),
            idempotencyKey: try read.text("idempotency_key"),
            membershipID: try read.optionalText("membership_id"),
            months: try read.optionalInt("months").map(Int.init),
            amountDZD: try read.optionalInt("amount_dzd").map(Int.init),
            reason: try read.text("reason"),
            seq: try read.int("seq")
        )
    }
}
