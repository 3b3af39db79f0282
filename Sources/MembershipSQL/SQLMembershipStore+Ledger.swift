import CardToken
public import Foundation
public import Membership

/// Sales and revoking changes as plain persistence: read a ledger, write a change that takes the member's next
/// version, which fails if another writer took that version first.
extension SQLMembershipStore {
    /// How many times a profile change is tried again before the caller is told to retry.
    static let ledgerAttempts = 50

    public func claim(_ key: IdempotencyKey, readingLedgerOf member: MemberReference, now: Int64) async throws -> (claimed: Bool, head: LedgerHead?) {
        let (claimed, rows) = try await database.writeThenRead(Self.claim(key, now: now), durable: false, Self.ledgerHeadQuery(member))
        return (claimed > 0, try rows.first.map(Self.ledgerHead))
    }

    public func ledgerHead(of member: MemberReference) async throws -> LedgerHead? {
        let query = Self.ledgerHeadQuery(member)
        return try await database.read { db in try await db.query(query.sql, query.binds) }.first.map(Self.ledgerHead)
    }

    public func commitSale(_ sale: SaleRecord, expectedVersion: Int64) async throws {
        let memberUUID = sale.period.memberUUID
        do {
            try await database.writeBatch(Self.saleStatements(sale, expectedVersion: expectedVersion))
        } catch let error as SQLError where Self.isConcurrentLedgerChange(error) {
            throw LedgerVersionConflict(memberUUID: memberUUID, expectedVersion: expectedVersion)
        } catch let error as SQLError where Self.isIdempotencyKeyTaken(error) {
            throw IdempotencyKeyTaken(key: sale.key)
        }
        cardCache?.forget(memberUUID)
    }

    /// What recording `sale` writes: the member's next version (which fails if another writer took it), the new
    /// head, the period, the card, the answer under the sale's key and the summaries' rows.
    static func saleStatements(_ sale: SaleRecord, expectedVersion: Int64) -> [SQLStatement] {
        let memberUUID = sale.period.memberUUID
        let version = expectedVersion + 1
        return [
            recordChange(of: memberUUID, version: version, kind: "activation", now: sale.recordedAt),
            saveLedgerHead(
                of: memberUUID,
                version: version,
                coverageEnd: sale.period.endsAt,
                lastPeriodSeq: sale.periodSeq,
                saleAt: sale.recordedAt,
                cardIssuedAt: sale.card.issuedAt,
                cohortMonth: sale.cohortMonth
            ),
            PeriodRecord.insert(sale.period, seq: sale.periodSeq, renewsEnd: sale.renewsEnd),
            saveCard(sale.card, version: version),
            touchWalletPass(of: memberUUID, now: sale.recordedAt),
            completeIdempotentRequest(sale.key, with: sale.response, now: sale.recordedAt),
        ] + ConsoleSummaries.sale(sale.period, renewsEnd: sale.renewsEnd) + SubscriptionSummaries.sale(sale) + ShopAccountRows.sale(sale.period)
    }

    public func memberLedger(of member: MemberReference) async throws -> MemberLedger? {
        let (condition, binds) = Self.condition(member)
        return try await database.read { db in try await Self.ledger(db, where: condition, binds) }
    }

    public func memberLedger(holdingPeriod id: UUID) async throws -> MemberLedger? {
        try await database.read { db in
            try await Self.ledger(db, where: "m.uuid = (SELECT member_uuid FROM periods WHERE id = ?)", [.text(id.uuidString)])
        }
    }

    public func commitRevokingChange(_ change: RevokingChange, expectedVersion: Int64) async throws -> Int64 {
        let member = change.memberUUID.uuidString
        let version = expectedVersion + 1
        let lock = self.lock
        let figures = SubscriptionSummaries.revokingChange(member: change.memberUUID, before: change.periodsBefore, after: change.periodsAfter)
        let cohort = SubscriptionFigures.figures(of: change.periodsAfter).cohortMonth
        let revokedBefore: Int64
        do {
            revokedBefore = try await database.write { db in
                // Statement by statement, the member's row locked first: a card kept for an earlier version has
                // committed before this reads it (its `iat` in the row, its token in `cards`), or is refused after.
                guard
                    let row = try await db.query(
                        "SELECT membership_id, last_card_issued_at, cards_valid_from FROM members WHERE uuid = ? AND ledger_version = ?\(lock)",
                        [.text(member), .int(expectedVersion)]
                    ).first
                else {
                    throw LedgerVersionConflict(memberUUID: change.memberUUID, expectedVersion: expectedVersion)
                }
                let revokedBefore = CardRevocationRule.revokedBefore(
                    now: change.recordedAt,
                    lastCardIssuedAt: try row.int("last_card_issued_at"),
                    cardsValidFrom: try row.int("cards_valid_from")
                )
                let listVersion = try await Self.revocationVersion(db) + 1
                let now = change.recordedAt
                let statements =
                    [
                        Self.recordChange(of: change.memberUUID, version: version, kind: change.kind.rawValue, now: now),
                        SQLStatement(
                            """
                            UPDATE members SET ledger_version = ?, coverage_end = ?, last_period_seq = ?, device_key = ?, cards_valid_from = ?,
                                cohort_month = ?
                            WHERE uuid = ?
                            """,
                            [
                                .int(version), change.coverageEnd.map(SQLValue.int) ?? .null, .int(change.lastPeriodSeq),
                                change.deviceKey.map { .text($0.base64url) } ?? .null, .int(revokedBefore), cohort.map(SQLValue.int) ?? .null,
                                .text(member),
                            ]
                        ),
                    ]
                    + Self.periodChanges(from: change.periodsBefore, to: change.periodsAfter)
                    + ShopAccountRows.cancellations(change.cancelledPeriods, now: now)
                    + (try await Self.renewalAndSummaryChanges(change, db)) + figures
                    + [
                        SQLStatement("INSERT INTO revocation_changes (version, changed_at) VALUES (?, ?)", [.int(listVersion), .int(now)]),
                        SQLStatement(
                            "INSERT INTO revocations (token_id, created_at, version) SELECT token_id, ?, ? FROM cards WHERE member_uuid = ?",
                            [.int(now), .int(listVersion), .text(member)]
                        ),
                        SQLStatement(
                            "INSERT INTO revocations (membership_id, revoked_before, created_at, version) VALUES (?, ?, ?, ?)",
                            [.text(try row.text("membership_id")), .int(revokedBefore), .int(now), .int(listVersion)]
                        ),
                        SQLStatement("DELETE FROM cards WHERE member_uuid = ?", [.text(member)]),
                        Self.touchWalletPass(of: change.memberUUID, now: now),
                    ]
                    + (change.audit.map { [AuditRecord.insert($0)] } ?? [])
                for statement in statements { try await db.execute(statement.sql, statement.binds) }
                return revokedBefore
            }
        } catch let error as SQLError where Self.isConcurrentLedgerChange(error) {
            throw LedgerVersionConflict(memberUUID: change.memberUUID, expectedVersion: expectedVersion)
        }
        cardCache?.forget(change.memberUUID)
        return revokedBefore
    }

    /// What a revoking change moves besides the periods' dates: each live period's renewed end (the end of the
    /// live period before it, which a cancellation moves back or takes away) and the console's summary rows: the
    /// periods it cancels, the renewals it ends or moves, the end of paid time it moves.
    static func renewalAndSummaryChanges(_ change: RevokingChange, _ db: any SQLExecutor) async throws -> [SQLStatement] {
        let cancelled = change.cancelledPeriods
        var stored: [String: Int64?] = [:]
        for row in try await db.query("SELECT id, renews_end FROM periods WHERE member_uuid = ?", [.text(change.memberUUID.uuidString)]) {
            stored[try row.text("id")] = try row.optionalInt("renews_end")
        }
        var renewals: [(before: Int64?, after: Int64?)] = []
        var updates: [SQLStatement] = []
        for period in cancelled {
            renewals.append((stored[period.id.uuidString] ?? nil, nil))
        }
        var previousEnd: Int64?
        for period in change.periodsAfter where period.cancelledAt == nil {
            let before = stored[period.id.uuidString] ?? nil
            if before != previousEnd {
                renewals.append((before, previousEnd))
                updates.append(
                    SQLStatement(
                        "UPDATE periods SET renews_end = ? WHERE id = ?",
                        [previousEnd.map(SQLValue.int) ?? .null, .text(period.id.uuidString)]
                    )
                )
            }
            previousEnd = period.endsAt
        }
        return updates
            + ConsoleSummaries.revokingChange(
                coverageBefore: CoverageSchedule.coverageEnd(change.periodsBefore),
                coverageAfter: change.coverageEnd,
                cancelled: cancelled,
                renewals: renewals
            )
    }

    /// Runs `attempt` until its batch commits without another writer having taken the member's next version.
    func withLedgerRetry<T>(_ attempt: () async throws -> T) async throws -> T {
        var attempts = 0
        while true {
            do {
                return try await attempt()
            } catch let error as SQLError where Self.isConcurrentLedgerChange(error) {
                attempts += 1
                guard attempts < Self.ledgerAttempts else {
                    throw MembershipError(.conflict, "The member's subscription kept changing while this was being recorded; retry.")
                }
                // A short random pause, so writers that collided do not collide again in step.
                try await Task.sleep(nanoseconds: UInt64.random(in: 0...UInt64(min(attempts, 10) * 200_000)))
            }
        }
    }

    /// Whether `error` means another writer recorded the member's (or the revocation list's) next version first (a
    /// batch's statements may run in any order, so the new period's `(member_uuid, seq)` can be the one to
    /// collide), or that the database broke a deadlock with such a writer: nothing was written either way.
    static func isConcurrentLedgerChange(_ error: SQLError) -> Bool {
        if error.code == .deadlock { return true }
        let constraint = error.subject
        return error.code == .uniqueViolation
            && (constraint.contains("member_changes") || constraint.contains("revocation_changes")
                || (constraint.contains("periods") && constraint.contains("seq")))
    }

    /// Records the member's next version; fails on its primary key if another writer recorded it first.
    static func recordChange(of member: UUID, version: Int64, kind: String, now: Int64) -> SQLStatement {
        SQLStatement(
            "INSERT INTO member_changes (member_uuid, version, kind, changed_at) VALUES (?, ?, ?, ?)",
            [.text(member.uuidString), .int(version), .text(kind), .int(now)],
            claim: SQLClaim(key: "member_changes \(member.uuidString) \(version)", refusal: .uniqueViolation("member_changes_pkey"))
        )
    }

    /// Writes the head of the member's ledger into its row, beside the sale recorded at `saleAt` that makes it, with
    /// the `iat` of the card answered with it. The sale's time, as counters' renewals use it, is after every card
    /// answered before it (same second included), so every card of the state before the sale counts as old.
    static func saveLedgerHead(
        of member: UUID,
        version: Int64,
        coverageEnd: Int64?,
        lastPeriodSeq: Int64,
        saleAt: Int64,
        cardIssuedAt: Int64,
        cohortMonth: Int64
    )
        -> SQLStatement
    {
        SQLStatement(
            """
            UPDATE members SET ledger_version = ?, coverage_end = ?, last_period_seq = ?, cohort_month = ?,
                last_sale_at = CASE WHEN last_card_issued_at >= ? THEN last_card_issued_at + 1 ELSE ? END,
                last_card_issued_at = CASE WHEN last_card_issued_at < ? THEN ? ELSE last_card_issued_at END
            WHERE uuid = ?
            """,
            [
                .int(version), coverageEnd.map(SQLValue.int) ?? .null, .int(lastPeriodSeq), .int(cohortMonth), .int(saleAt), .int(saleAt),
                .int(cardIssuedAt),
                .int(cardIssuedAt), .text(member.uuidString),
            ]
        )
    }

    /// The `WHERE` condition on `members m` that finds the referenced member.
    static func condition(_ reference: MemberReference) -> (String, [SQLValue]) {
        switch reference {
        case .uuid(let uuid): return ("m.uuid = ?", [.text(uuid.uuidString)])
        case .membershipID(let id): return ("m.membership_id = ?", [.text(id)])
        }
    }

    /// The query for the head of the referenced member's ledger.
    static func ledgerHeadQuery(_ reference: MemberReference) -> SQLStatement {
        let (condition, binds) = condition(reference)
        return SQLStatement(
            "SELECT \(MemberRecord.select("m")), \(Self.headColumns) FROM members m WHERE \(condition)",
            binds
        )
    }

    /// The columns of `members m` beside the member's own that make the head of its ledger.
    static let headColumns = "m.ledger_version, m.coverage_end, m.last_period_seq, m.cards_valid_from, m.cohort_month"

    static func ledgerHead(_ row: SQLRow) throws -> LedgerHead {
        LedgerHead(
            member: try MemberRecord.member(row),
            version: try row.int("ledger_version"),
            coverageEnd: try row.optionalInt("coverage_end"),
            lastPeriodSeq: try row.int("last_period_seq"),
            cardsValidFrom: try row.int("cards_valid_from"),
            cohortMonth: try row.optionalInt("cohort_month")
        )
    }

    /// Reads the whole ledger of the member `condition` finds (on `members m`).
    static func ledger(_ db: any SQLExecutor, where condition: String, _ binds: [SQLValue]) async throws -> MemberLedger? {
        let rows = try await db.query(
            """
            SELECT \(MemberRecord.select("m")), \(headColumns), \(PeriodRecord.select("p", prefix: "period_"))
            FROM members m LEFT JOIN periods p ON p.member_uuid = m.uuid
            WHERE \(condition) ORDER BY p.seq
            """,
            binds
        )
        guard let first = rows.first else { return nil }
        return MemberLedger(
            head: try ledgerHead(first),
            periods: try rows.filter { $0["period_id"] != .null }.map { try PeriodRecord.period($0, prefix: "period_") }
        )
    }
}
