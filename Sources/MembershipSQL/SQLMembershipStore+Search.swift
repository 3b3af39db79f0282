import Foundation
public import Membership

/// Finding members: by membership id or phone through their unique indexes, by the start of a name through the
/// search keys' b-tree, by any part of a name, phone or id through the keys' trigram index (see
/// ``SQLDialect/PartSearch``). No search reads every member.
extension SQLMembershipStore {
    public func searchMembers(_ query: MemberSearch, limit: Int) async throws -> [MemberStanding] {
        try await database.readReport { db in
            switch query {
            case .membershipID(let id):
                return try await Self.standings(db, where: "m.membership_id = ?", [.text(id)], limit: limit)
            case .phone(let phone):
                return try await Self.standings(db, where: "m.phone = ?", [.text(phone)], limit: limit)
            case .start(let start):
                return try await Self.standings(db, startingWith: start, limit: limit, bytewise: database.dialect.bytewiseCollation)
            case .part(let part):
                // Keys that start with it first (a name typed from its start), then the others that hold it.
                let starting = try await Self.standings(db, startingWith: part, limit: limit, bytewise: database.dialect.bytewiseCollation)
                guard starting.count < limit else { return starting }
                let holding = try await Self.standings(db, holding: part, limit: limit + starting.count, partSearch: database.dialect.partSearch)
                let found = Set(starting.map(\.member.uuid))
                let others = holding.filter { !found.contains($0.member.uuid) }.sorted { $0.member.searchKey < $1.member.searchKey }
                return starting + others.prefix(limit - starting.count)
            }
        }
    }

    private static func standings(_ db: any SQLExecutor, where condition: String, _ binds: [SQLValue], limit: Int) async throws -> [MemberStanding] {
        try await db.query(
            "SELECT \(standingColumns) FROM members m WHERE \(condition) ORDER BY m.search_key, m.membership_id LIMIT ?",
            binds + [.int(Int64(limit))]
        ).map(standing)
    }

    /// The members whose key starts with `start`: a range of the keys' b-tree, compared byte by byte.
    private static func standings(_ db: any SQLExecutor, startingWith start: String, limit: Int, bytewise: String) async throws -> [MemberStanding] {
        try await standings(
            db,
            where: "m.search_key\(bytewise) >= ? AND m.search_key\(bytewise) < ?",
            [.text(start), .text(start + "\u{10FFFF}")],
            limit: limit
        )
    }

    /// Up to `limit` members whose key holds `part` (of at least three characters), in no order.
    private static func standings(
        _ db: any SQLExecutor,
        holding part: String,
        limit: Int,
        partSearch: SQLDialect.PartSearch
    ) async throws -> [MemberStanding] {
        switch partSearch {
        case .trigramTable:
            // One phrase: the rows whose key holds these characters in a row.
            let phrase = "\"" + part.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            return try await db.query(
                """
                SELECT \(standingColumns) FROM members m
                WHERE m.uuid IN (SELECT member_uuid FROM member_search WHERE member_search MATCH ? LIMIT ?)
                """,
                [.text(phrase), .int(Int64(limit))]
            ).map(standing)
        case .trigramIndex:
            let pattern =
                "%"
                + part.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                .replacingOccurrences(of: "_", with: "\\_") + "%"
            return try await db.query(
                "SELECT \(standingColumns) FROM members m WHERE m.search_key LIKE ? LIMIT ?",
                [.text(pattern), .int(Int64(limit))]
            ).map(standing)
        }
    }

    /// Gives every member written before migration 019 the key searches find it by, a batch per transaction;
    /// nothing to do once each has one. Instances starting together may fill the same rows: with the same keys.
    func fillSearchKeys(batch: Int = 2_000) async throws {
        let bytewise = database.dialect.bytewiseCollation
        while true {
            let filled = try await database.write { db in
                let rows = try await db.query(
                    "SELECT uuid, name, phone, membership_id FROM members WHERE search_key\(bytewise) = '' LIMIT ?",
                    [.int(Int64(batch))]
                )
                for row in rows {
                    let key = MemberSearchKey.key(
                        name: try row.text("name"),
                        phone: try row.text("phone"),
                        membershipID: try row.text("membership_id")
                    )
                    try await db.execute("UPDATE members SET search_key = ? WHERE uuid = ?", [.text(key), .text(try row.text("uuid"))])
                }
                return rows.count
            }
            if filled < batch { return }
        }
    }
}
