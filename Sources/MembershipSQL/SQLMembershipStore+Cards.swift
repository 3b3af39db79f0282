public import Foundation
public import Membership

/// Cards and revocations. A stored card is current while the member is still at the version it was made for;
/// where the database announces changes, current cards are also kept in memory. A card is kept only while its
/// member is at the version it was signed from, so a revoking change covers every card ever answered.
extension SQLMembershipStore {
    public func card(memberUUID: UUID) async throws -> StoredCard? {
        guard let cardCache else { return try await database.read { db in try await Self.currentCard(db, memberUUID: memberUUID) } }
        if let card = cardCache.card(for: memberUUID) { return card }
        let ticket = cardCache.ticket()
        let card = try await database.read { db in try await Self.currentCard(db, memberUUID: memberUUID) }
        if let card { cardCache.keep(card, readAfter: ticket) }
        return card
    }

    public func cardBasis(memberUUID: UUID) async throws -> CardBasis? {
        // The mark before the read: a change heard after it keeps a card signed from this head out of memory.
        let mark = cardCache?.ticket().generation ?? 0
        guard let head = try await ledgerHead(of: .uuid(memberUUID)) else { return nil }
        return CardBasis(head: head, readMark: mark)
    }

    public func keepCard(_ card: StoredCard, signedFrom basis: CardBasis) async throws -> StoredCard {
        let head = basis.head
        let save = Self.saveCard(card, version: head.version)
        let kept = try await database.write(durable: false) { db -> StoredCard? in
            // Compare and set: only while the member is still at the basis's version, recording the card's `iat`
            // in the row a revoking change locks and reads.
            let current = try await db.query(
                """
                UPDATE members SET last_card_issued_at = CASE WHEN last_card_issued_at < ? THEN ? ELSE last_card_issued_at END, \(Self.shownUntil)
                WHERE uuid = ? AND ledger_version = ? RETURNING uuid
                """,
                [
                    .int(card.issuedAt), .int(card.issuedAt), .int(card.expiresAt), .int(card.expiresAt), .text(card.memberUUID.uuidString),
                    .int(head.version),
                ]
            )
            guard !current.isEmpty else { return nil }
            guard try await db.query(save.sql + " RETURNING member_uuid", save.binds).isEmpty else { return card }
            // Another read kept a card for this version first: that one is the member's card.
            return try await Self.currentCard(db, memberUUID: card.memberUUID)
        }
        guard let kept else { throw LedgerVersionConflict(memberUUID: card.memberUUID, expectedVersion: head.version) }
        if kept == card { cardCache?.keep(card, readAfter: CardCache.Ticket(generation: basis.readMark)) }
        return kept
    }

    public func keepPicture(of card: StoredCard) async throws -> StoredCard {
        guard let png = card.png else { return card }
        let ticket = cardCache?.ticket()
        let kept = try await database.write(durable: false) { db in
            // Drawn to be shown: the member's phone now has a card paid until its `exp` (no renewal to list).
            _ = try await db.query(
                "UPDATE members SET \(Self.shownUntil) WHERE uuid = ?",
                [.int(card.expiresAt), .int(card.expiresAt), .text(card.memberUUID.uuidString)]
            )
            return try await db.query(
                """
                UPDATE cards SET png = ? WHERE member_uuid = ? AND token_id = ?
                    AND member_version = (SELECT m.ledger_version FROM members m WHERE m.uuid = cards.member_uuid)
                RETURNING member_uuid
                """,
                [.blob(png), .text(card.memberUUID.uuidString), .text(card.tokenID)]
            )
        }
        if let ticket, !kept.isEmpty { cardCache?.keep(card, readAfter: ticket) }
        return card
    }

    /// The assignment raising the member's shown paid time to a card's `exp` (bound twice).
    static let shownUntil = "shown_paid_until = CASE WHEN shown_paid_until < ? THEN ? ELSE shown_paid_until END"

    public func renewals(after: Int64?, now: Int64) async throws -> [Renewal] {
        try await database.read { db in
            try await db.query(
                """
                SELECT membership_id, coverage_end, last_sale_at FROM members
                WHERE coverage_end > shown_paid_until AND coverage_end > ? AND last_sale_at >= ?
                ORDER BY membership_id
                """,
                [.int(now), .int(after ?? .min)]
            ).map { row in
                Renewal(membershipID: try row.text("membership_id"), paidUntil: try row.int("coverage_end"), renewedAt: try row.int("last_sale_at"))
            }
        }
    }

    /// The stored card, if it was made for the member's current version.
    static func currentCard(_ db: any SQLExecutor, memberUUID: UUID) async throws -> StoredCard? {
        try await db.query(
            """
            SELECT k.token_id, k.token, k.png, k.issued_at, k.expires_at, k.coverage_end
            FROM cards k JOIN members m ON m.uuid = k.member_uuid AND m.ledger_version = k.member_version
            WHERE k.member_uuid = ?
            """,
            [.text(memberUUID.uuidString)]
        ).first.map { row in
            let read = RowReader(row: row, table: "cards")
            return StoredCard(
                memberUUID: memberUUID,
                tokenID: try read.text("token_id"),
                token: try read.text("token"),
                png: try read.blob("png").nonEmpty,
                issuedAt: try read.int("issued_at"),
                expiresAt: try read.int("expires_at"),
                coverageEnd: try read.optionalInt("coverage_end")
            )
        }
    }

    /// Stores `card` as made for the member's `version`, unless a card for that version or a later one is stored.
    /// A card not yet rendered keeps an empty picture.
    static func saveCard(_ card: StoredCard, version: Int64) -> SQLStatement {
        SQLStatement(
            """
            INSERT INTO cards (member_uuid, token_id, token, png, issued_at, expires_at, coverage_end, member_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (member_uuid) DO UPDATE SET token_id = excluded.token_id, token = excluded.token, png = excluded.png,
                issued_at = excluded.issued_at, expires_at = excluded.expires_at, coverage_end = excluded.coverage_end,
                member_version = excluded.member_version
            WHERE cards.member_version < excluded.member_version
            """,
            [
                .text(card.memberUUID.uuidString), .text(card.tokenID), .text(card.token), .blob(card.png ?? []), .int(card.issuedAt),
                .int(card.expiresAt), card.coverageEnd.map(SQLValue.int) ?? .null, .int(version),
            ]
        )
    }

    public func revocations(since: Int64?) async throws -> RevocationSnapshot {
        try await database.read { db in
            // The version first: every change numbered up to it has committed, so the rows read next hold all
            // of them (and perhaps newer ones, which a counter applies again harmlessly).
            let version = try await Self.revocationVersion(db)
            let delta = since.flatMap { (0...version).contains($0) ? $0 : nil }
            // Nothing changed since: no rows to read (the planner may walk the whole list in `seq` order to find none).
            if let delta, delta == version { return RevocationSnapshot(tokenIDs: [], members: [:], version: version, since: delta) }
            var tokenIDs: [String] = []
            var members: [String: Int64] = [:]
            let rows = try await db.query(
                "SELECT token_id, membership_id, revoked_before FROM revocations WHERE version > ? ORDER BY seq",
                [.int(delta ?? -1)]
            )
            for row in rows {
                if let tokenID = try row.optionalText("token_id") { tokenIDs.append(tokenID) }
                if let member = try row.optionalText("membership_id"), let before = try row.optionalInt("revoked_before") {
                    members[member] = max(members[member] ?? before, before)
                }
            }
            return RevocationSnapshot(tokenIDs: tokenIDs, members: members, version: version, since: delta)
        }
    }

    /// The revocation list's current version: its newest change, 0 before any.
    static func revocationVersion(_ db: any SQLExecutor) async throws -> Int64 {
        try await db.query("SELECT COALESCE(MAX(version), 0) AS version FROM revocation_changes", [])[0].int("version")
    }
}

extension Array where Element == UInt8 {
    /// The bytes, or nil when there are none.
    fileprivate var nonEmpty: [UInt8]? { isEmpty ? nil : self }
}
