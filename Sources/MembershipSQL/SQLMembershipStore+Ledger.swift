public import CardToken
public import Foundation
public import Membership

/// A member's whole ledger, read in one statement: a cancellation lays every period out again.
struct Ledger: Sendable {
    var head: LedgerHead
    /// The periods in purchase order.
    var periods: [SubscriptionPeriod]
    var storedCardTokenID: String?
}

/// Sales and cancellations as plain persistence: read a ledger's head, write a change that takes the member's
/// next version in one batch, which fails if another writer took that version first.
extension SQLMembershipStore {
    /// How many times a cancellation is worked out again before the caller is told to retry.
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
        let version = expectedVersion + 1
        do {
            try await database.writeBatch([
                Self.recordChange(of: memberUUID, version: version, kind: "activation", now: sale.recordedAt),
                Self.saveLedgerHead(of: memberUUID, version: version, coverageEnd: sale.period.endsAt, lastPeriodSeq: sale.periodSeq),
                PeriodRecord.insert(sale.period, seq: sale.periodSeq),
                Self.saveCard(sale.card, version: version),
                Self.completeIdempotentRequest(sale.key, with: sale.response, now: sale.recordedAt),
            ])
        } catch let error as SQLError where error.code == .uniqueViolation && Self.isConcurrentLedgerChange(error.subject) {
            throw LedgerVersionConflict(memberUUID: memberUUID, expectedVersion: expectedVersion)
        }
        cardCache?.forget(memberUUID)
    }

    public func cancelPeriod(id: UUID, now: Int64) async throws -> CancellationResult {
        let (memberUUID, result) = try await withLedgerRetry {
            guard
                let (ledger, revocationVersion) = try await database.read({ db -> (Ledger, Int64)? in
                    guard
                        let ledger = try await Self.ledger(
                            db,
                            where: "m.uuid = (SELECT member_uuid FROM periods WHERE id = ?)",
                            [.text(id.uuidString)]
                        )
                    else {
                        return nil
                    }
                    return (ledger, try await Self.revocationVersion(db))
                })
            else {
                throw MembershipError(.notFound, "No subscription period has id \(id.lowercasedText).")
            }
            guard let index = ledger.periods.firstIndex(where: { $0.id == id }), ledger.periods[index].cancelledAt == nil else {
                throw MembershipError(.conflict, "The period \(id.lowercasedText) is already cancelled.")
            }
            let head = ledger.head
            var changed = ledger.periods
            changed[index].cancelledAt = now
            let laidOut = CoverageSchedule.laidOut(changed)
            // Every card issued before now shows coverage that no longer exists.
            let revocations = Self.revokingCards(of: ledger, version: revocationVersion + 1, now: now)
            let coverageEnd = CoverageSchedule.coverageEnd(laidOut)
            try await database.writeBatch(
                [
                    Self.recordChange(of: head.member.uuid, version: head.version + 1, kind: "cancellation", now: now),
                    Self.saveLedgerHead(of: head.member.uuid, version: head.version + 1, coverageEnd: coverageEnd, lastPeriodSeq: head.lastPeriodSeq),
                ]
                    + Self.periodChanges(from: ledger.periods, to: laidOut)
                    + revocations
                    + [SQLStatement("DELETE FROM cards WHERE member_uuid = ?", [.text(head.member.uuid.uuidString)])]
            )
            return (head.member.uuid, CancellationResult(period: laidOut[index], periods: laidOut, coverageEnd: coverageEnd, revokedBefore: now))
        }
        cardCache?.forget(memberUUID)
        return result
    }

    public func replaceDeviceKey(memberUUID: UUID, with key: DeviceKey?, now: Int64) async throws -> (member: Member, changed: Bool) {
        let result = try await withLedgerRetry {
            guard
                let (ledger, revocationVersion) = try await database.read({ db -> (Ledger, Int64)? in
                    guard let ledger = try await Self.ledger(db, where: "m.uuid = ?", [.text(memberUUID.uuidString)]) else { return nil }
                    return (ledger, try await Self.revocationVersion(db))
                })
            else {
                throw MembershipError(.notFound, "No member has uuid \(memberUUID.lowercasedText).")
            }
            let head = ledger.head
            guard head.member.deviceKey != key else { return (head.member, false) }
            var member = head.member
            member.deviceKey = key
            // The old phone's cards (and any card bound to no phone) stop working; the next card names the new key.
            try await database.writeBatch(
                [
                    Self.recordChange(of: memberUUID, version: head.version + 1, kind: "device_key", now: now),
                    SQLStatement(
                        "UPDATE members SET device_key = ?, ledger_version = ? WHERE uuid = ?",
                        [key.map { .text($0.base64url) } ?? .null, .int(head.version + 1), .text(memberUUID.uuidString)]
                    ),
                    SQLStatement("DELETE FROM cards WHERE member_uuid = ?", [.text(memberUUID.uuidString)]),
                ] + Self.revokingCards(of: ledger, version: revocationVersion + 1, now: now)
            )
            return (member, true)
        }
        if result.1 { cardCache?.forget(memberUUID) }
        return result
    }

    /// The revocation list's next version, revoking the member's stored card by its token id and every card
    /// of the member issued before `now`.
    static func revokingCards(of ledger: Ledger, version: Int64, now: Int64) -> [SQLStatement] {
        [SQLStatement("INSERT INTO revocation_changes (version, changed_at) VALUES (?, ?)", [.int(version), .int(now)])]
            + (ledger.storedCardTokenID.map {
                [SQLStatement("INSERT INTO revocations (token_id, created_at, version) VALUES (?, ?, ?)", [.text($0), .int(now), .int(version)])]
            } ?? [])
            + [
                SQLStatement(
                    "INSERT INTO revocations (membership_id, revoked_before, created_at, version) VALUES (?, ?, ?, ?)",
                    [.text(ledger.head.member.membershipID), .int(now), .int(now), .int(version)]
                )
            ]
    }

    /// Runs `attempt` until its batch commits without another writer having taken the member's next version.
    func withLedgerRetry<T>(_ attempt: () async throws -> T) async throws -> T {
        var attempts = 0
        while true {
            do {
                return try await attempt()
            } catch let error as SQLError where error.code == .uniqueViolation && Self.isConcurrentLedgerChange(error.subject) {
                attempts += 1
                guard attempts < Self.ledgerAttempts else {
                    throw MembershipError(.conflict, "The member's subscription kept changing while this was being recorded; retry.")
                }
                // A short random pause, so writers that collided do not collide again in step.
                try await Task.sleep(nanoseconds: UInt64.random(in: 0...UInt64(min(attempts, 10) * 200_000)))
            }
        }
    }

    /// Whether a unique violation means another writer recorded the member's (or the revocation list's) next
    /// version first (a batch's statements may run in any order, so the new period's `(member_uuid, seq)` can be
    /// the one to collide).
    static func isConcurrentLedgerChange(_ constraint: String) -> Bool {
        constraint.contains("member_changes") || constraint.contains("revocation_changes")
            || (constraint.contains("periods") && constraint.contains("seq"))
    }

    /// Records the member's next version; fails on its primary key if another writer recorded it first.
    static func recordChange(of member: UUID, version: Int64, kind: String, now: Int64) -> SQLStatement {
        SQLStatement(
            "INSERT INTO member_changes (member_uuid, version, kind, changed_at) VALUES (?, ?, ?, ?)",
            [.text(member.uuidString), .int(version), .text(kind), .int(now)]
        )
    }

    /// Writes the head of the member's ledger into its row, beside the change that makes it.
    static func saveLedgerHead(of member: UUID, version: Int64, coverageEnd: Int64?, lastPeriodSeq: Int64) -> SQLStatement {
        SQLStatement(
            "UPDATE members SET ledger_version = ?, coverage_end = ?, last_period_seq = ? WHERE uuid = ?",
            [.int(version), coverageEnd.map(SQLValue.int) ?? .null, .int(lastPeriodSeq), .text(member.uuidString)]
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
            "SELECT \(MemberRecord.select("m")), m.ledger_version, m.coverage_end, m.last_period_seq FROM members m WHERE \(condition)",
            binds
        )
    }

    static func ledgerHead(_ row: SQLRow) throws -> LedgerHead {
        LedgerHead(
            member: try MemberRecord.member(row),
            version: try row.int("ledger_version"),
            coverageEnd: try row.optionalInt("coverage_end"),
            lastPeriodSeq: try row.int("last_period_seq")
        )
    }

    /// Reads the whole ledger of the member `condition` finds (on `members m`).
    static func ledger(_ db: any SQLExecutor, where condition: String, _ binds: [SQLValue]) async throws -> Ledger? {
        let rows = try await db.query(
            """
            SELECT \(MemberRecord.select("m")), m.ledger_version, m.coverage_end, m.last_period_seq,
                (SELECT k.token_id FROM cards k WHERE k.member_uuid = m.uuid) AS card_token_id,
                \(PeriodRecord.select("p", prefix: "period_"))
            FROM members m LEFT JOIN periods p ON p.member_uuid = m.uuid
            WHERE \(condition) ORDER BY p.seq
            """,
            binds
        )
        guard let first = rows.first else { return nil }
        return Ledger(
            head: try ledgerHead(first),
            periods: try rows.filter { $0["period_id"] != .null }.map { try PeriodRecord.period($0, prefix: "period_") },
            storedCardTokenID: try first.optionalText("card_token_id")
        )
    }
}
