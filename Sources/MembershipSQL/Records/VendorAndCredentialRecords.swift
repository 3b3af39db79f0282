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
    static let columns = ["id", "role", "vendor_id", "secret_hash", "label", "created_at"]

    /// A credential's values, in the order of ``columns``.
    static func values(_ credential: APICredential) -> [SQLValue] {
        [
            .text(credential.id.uuidString), .text(credential.role.rawValue), credential.vendorID.map { .text($0.uuidString) } ?? .null,
            .text(credential.secretHash), .text(credential.label), .int(credential.createdAt),
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
            createdAt: try read.int("created_at")
        )
    }
}
