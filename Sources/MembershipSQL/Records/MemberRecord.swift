import CardToken
import Foundation
import Membership

/// The `members` table: its columns in one place, and a member read from a row.
enum MemberRecord {
    static let table = "members"
    static let columns = ["uuid", "membership_id", "name", "phone", "email", "neighbourhood", "language", "created_at", "device_key"]

    /// The columns of `members` under the alias `alias`, each named `prefix` + its own name.
    static func select(_ alias: String, prefix: String = "") -> String {
        columns.map { "\(alias).\($0) AS \(prefix)\($0)" }.joined(separator: ", ")
    }

    /// A member's values, in the order of ``columns``.
    static func values(_ member: Member) -> [SQLValue] {
        [
            .text(member.uuid.uuidString), .text(member.membershipID), .text(member.name), .text(member.phone), .text(member.email),
            .text(member.neighbourhood), .text(member.language.rawValue), .int(member.createdAt),
            member.deviceKey.map { .text($0.base64url) } ?? .null,
        ]
    }

    /// A new member's row, with the key searches find it by (see ``MemberSearchKey``).
    static func insert(_ member: Member) -> SQLStatement {
        SQLStatement.insert(into: table, columns: columns + ["search_key"], values(member) + [.text(member.searchKey)])
    }

    static func member(_ row: SQLRow, prefix: String = "") throws -> Member {
        let read = RowReader(row: row, table: table, prefix: prefix)
        return Member(
            uuid: try read.uuid("uuid"),
            membershipID: try read.text("membership_id"),
            name: try read.text("name"),
            phone: try read.text("phone"),
            email: try read.text("email"),
            neighbourhood: try read.text("neighbourhood"),
            language: try read.value("language", as: Member.Language.self),
            createdAt: try read.int("created_at"),
            deviceKey: try read.optionalText("device_key").map { text in
                guard let key = try? DeviceKey(base64url: text) else { throw SQLError.unexpectedValue("\(table).device_key") }
                return key
            }
        )
    }
}
