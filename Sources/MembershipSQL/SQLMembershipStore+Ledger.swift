public import Foundation
public import Membership

/// What a sale or a new card needs of a member's ledger, read in one statement: who, at which version, paid
/// until when, and how many periods it has.
struct LedgerSummary: Sendable {
    var member: Member
    /// The member's latest version in `member_changes` (0 before any change).
    var version: Int64
    /// The end of the member's paid time (nil: none).
    var coverageEnd: Int64?
    /// The `seq` of the member's last period (0: none).
    var lastPeriodSeq: Int64
}

/// A member's whole ledger, read in one statement: a cancellation lays every period out again.
struct Ledger: Sendable {
    var member: Member
    var version: Int64
    var lastPeriodSeq: Int64
    /// The periods in purchase order.
    var periods: [SubscriptionPeriod]
    var storedCardTokenID: String?
}

/// Sales and cancellations: read the ledger, work the change out, write it in one batch that takes the
/// member's next version; again on fresh data if another writer took it first.
extension SQLMembershipStore {
    /// How many times a change is worked out again before the caller is told to retry.
    static let ledgerAttempts = 50

    public func activate(
        _ activation: Activation,
        key: IdempotencyKey,
        now: Int64,
        abandonAfter: Int64,
        mintCard: CardMinting,
        response: @Sendable (ActivationResult) throws -> StoredResponse
    ) async throws -> ActivationOutcome {
        try Pricing.validate(months: activation.months, amountDZD: activation.amountDZD)
        let (condition, binds) = Self.condition(activation.member)
        let readLedger = SQLStatement(Self.ledgerSummarySQL(condition), binds)
        // Claim the key and read the ledger in one round trip; a key already recorded is looked at on its own.
        // The claim need not wait for the disk: lost in a crash, it only frees the key of a sale that was not
        // made, and the sale's own transaction records the key again with its response.
        let (claimed, rows) = try await database.writeThenRead(Self.claim(key, now: now), durable: false, readLedger)
        if claimed == 0 {
            switch try await existingIdempotentRequest(key, now: now, abandonAfter: abandonAfter) {
            case .proceed: break  // an abandoned attempt, taken over
            case .replay(let stored): return .replay(stored)
            case .inFlight: return .inFlight
            case .mismatch: return .mismatch
            }
        }
        do {
            var ledger = try rows.first.map(Self.ledgerSummary)
            var attempts = 0
            let sale = try await withLedgerRetry { () -> (result: ActivationResult, response: StoredResponse) in
                attempts += 1
                if attempts > 1 {
                    ledger = try await database.read { db in try await db.query(readLedger.sql, readLedger.binds) }.first.map(Self.ledgerSummary)
                }
                guard let ledger else { throw MembershipError(.notFound, "No member has \(activation.member).") }
                return try await sell(activation, to: ledger, key: key, now: now, mintCard: mintCard, response: response)
            }
            cardCache?.forget(sale.result.member.uuid)
            return .sold(sale.result, sale.response)
        } catch {
            // Nothing was sold: free the key so the vendor can correct the request and retry.
            try? await abandonIdempotentRequest(key)
            throw error
        }
    }

    /// Places the period after the coverage `ledger` shows, signs the card, and writes change, ledger head,
    /// period, card and stored response in one batch that fails if another writer took the next version.
    private func sell(
        _ activation: Activation,
        to ledger: LedgerSummary,
        key: IdempotencyKey,
        now: Int64,
        mintCard: CardMinting,
        response: (ActivationResult) throws -> StoredResponse
    ) async throws -> (result: ActivationResult, response: StoredResponse) {
        let member = ledger.member
        let period = CoverageSchedule.placed(
            SubscriptionPeriod(
                id: UUID(),
                memberUUID: member.uuid,
                months: activation.months,
                amountDZD: activation.amountDZD,
                source: .vendor,
                vendorID: activation.vendorID,
                purchasedAt: now,
                startsAt: now,
                endsAt: now
            ),
            after: ledger.coverageEnd
        )
        let version = ledger.version + 1
        let card = try mintCard(member, period.endsAt, now)
        let result = ActivationResult(member: member, period: period, coverageEnd: period.endsAt, card: card)
        let stored = try response(result)
        try await database.writeBatch([
            Self.recordChange(of: member.uuid, version: version, kind: "activation", now: now),
            Self.saveLedgerHead(of: member.uuid, version: version, coverageEnd: period.endsAt, lastPeriodSeq: ledger.lastPeriodSeq + 1),
            Self.insertPeriod(period, seq: ledger.lastPeriodSeq + 1),
            Self.saveCard(card, version: version),
            Self.completeIdempotentRequest(key, with: stored, now: now),
        ])
        return (result, stored)
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
            let member = ledger.member
            var changed = ledger.periods
            changed[index].cancelledAt = now
            let laidOut = CoverageSchedule.laidOut(changed)
            // Every card issued before now shows coverage that no longer exists.
            let version = revocationVersion + 1
            let revocations =
                [SQLStatement("INSERT INTO revocation_changes (version, changed_at) VALUES (?, ?)", [.int(version), .int(now)])]
                + (ledger.storedCardTokenID.map {
                    [SQLStatement("INSERT INTO revocations (token_id, created_at, version) VALUES (?, ?, ?)", [.text($0), .int(now), .int(version)])]
                } ?? [])
                + [
                    SQLStatement(
                        "INSERT INTO revocations (membership_id, revoked_before, created_at, version) VALUES (?, ?, ?, ?)",
                        [.text(member.membershipID), .int(now), .int(now), .int(version)]
                    )
                ]
            let coverageEnd = CoverageSchedule.coverageEnd(laidOut)
            try await database.writeBatch(
                [
                    Self.recordChange(of: member.uuid, version: ledger.version + 1, kind: "cancellation", now: now),
                    Self.saveLedgerHead(of: member.uuid, version: ledger.version + 1, coverageEnd: coverageEnd, lastPeriodSeq: ledger.lastPeriodSeq),
                ]
                    + Self.periodChanges(from: ledger.periods, to: laidOut)
                    + revocations
                    + [SQLStatement("DELETE FROM cards WHERE member_uuid = ?", [.text(member.uuid.uuidString)])]
            )
            return (member.uuid, CancellationResult(period: laidOut[index], periods: laidOut, coverageEnd: coverageEnd, revokedBefore: now))
        }
        cardCache?.forget(memberUUID)
        return result
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
    /// version first (a batch's
    /// statements may run in any order, so the new period's `(member_uuid, seq)` can be the one to collide).
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

    /// The query for the head of the ledger of the member `condition` finds (on `members m`).
    static func ledgerSummarySQL(_ condition: String) -> String {
        "SELECT \(MemberRecord.select("m")), m.ledger_version, m.coverage_end, m.last_period_seq FROM members m WHERE \(condition)"
    }

    static func ledgerSummary(_ row: SQLRow) throws -> LedgerSummary {
        LedgerSummary(
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
            SELECT \(MemberRecord.select("m")), m.ledger_version, m.last_period_seq,
                (SELECT k.token_id FROM cards k WHERE k.member_uuid = m.uuid) AS card_token_id,
                \(PeriodRecord.select("p", prefix: "period_"))
            FROM members m LEFT JOIN periods p ON p.member_uuid = m.uuid
            WHERE \(condition) ORDER BY p.seq
            """,
            binds
        )
        guard let first = rows.first else { return nil }
        return Ledger(
            member: try MemberRecord.member(first),
            version: try first.int("ledger_version"),
            lastPeriodSeq: try first.int("last_period_seq"),
            periods: try rows.filter { $0["period_id"] != .null }.map { try PeriodRecord.period($0, prefix: "period_") },
            storedCardTokenID: try first.optionalText("card_token_id")
        )
    }
}
