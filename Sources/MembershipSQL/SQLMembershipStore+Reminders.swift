public import Foundation
public import Membership

/// Renewal reminders in the ledger's database.
extension SQLMembershipStore: ReminderStore {
    /// The threshold a coverage end has reached at `?` (the time, bound three times), as SQL.
    private static let thresholdCase = """
        CASE WHEN m.coverage_end <= ? THEN 'ended' WHEN m.coverage_end <= ? THEN '1d' WHEN m.coverage_end <= ? THEN '3d' ELSE '7d' END
        """

    private static func thresholdBinds(_ now: Int64) -> [SQLValue] {
        [.int(now), .int(now + 86_400), .int(now + 3 * 86_400)]
    }

    public func recordDueReminders(channel: String, now: Int64, batchSeconds: Int64) async throws -> Int {
        var recorded = 0
        var start = now - Reminder.endedWindow
        let end = now + 7 * 86_400
        while start < end {
            let stop = min(start + batchSeconds, end)
            // One indexed range of coverage ends; the unique key makes a reminder recorded before (by this run
            // or another at the same time) a no-op. The id is the key itself, the same however often it is made,
            // so two runs inserting one reminder at once collide on either constraint: both are no-ops.
            let rows = try await database.writeStatement(
                """
                INSERT INTO reminders (id, member_uuid, coverage_end, threshold, channel, state, attempts, next_attempt_at, created_at, updated_at)
                SELECT 'rem_' || LOWER(due.uuid) || '_' || CAST(due.coverage_end AS TEXT) || '_' || due.threshold || '_' || CAST(? AS TEXT),
                       due.uuid, due.coverage_end, due.threshold, CAST(? AS TEXT), 'pending', 0, ?, ?, ?
                FROM (SELECT m.uuid, m.coverage_end, \(Self.thresholdCase) AS threshold
                      FROM members m WHERE m.coverage_end > ? AND m.coverage_end <= ?\(Self.channelFilter(channel))) due
                WHERE true
                ON CONFLICT DO NOTHING
                RETURNING id
                """,
                [.text(channel), .text(channel), .int(now), .int(now), .int(now)] + Self.thresholdBinds(now) + [.int(start), .int(stop)]
            )
            recorded += rows.count
            start = stop
        }
        return recorded
    }

    /// Members with an Apple Wallet pass on a device are reminded through it (the `wallet` channel), and only
    /// through it: every other channel leaves them out, so no member is told twice.
    static func channelFilter(_ channel: String) -> String {
        let hasPass = "EXISTS (SELECT 1 FROM wallet_registrations r WHERE r.member_uuid = m.uuid)"
        return channel == Reminder.walletChannel ? " AND \(hasPass)" : " AND NOT \(hasPass)"
    }

    public func previewDueReminders(channel: String, now: Int64, after cursor: UUID?, limit: Int) async throws -> [DueReminder] {
        let rows = try await database.read { db in
            try await db.query(
                """
                SELECT m.uuid, m.membership_id, m.name, m.language, m.coverage_end, \(Self.thresholdCase) AS threshold
                FROM members m
                WHERE m.coverage_end > ? AND m.coverage_end <= ? AND m.uuid > ?\(Self.channelFilter(channel))
                  AND NOT EXISTS (SELECT 1 FROM reminders r WHERE r.member_uuid = m.uuid AND r.coverage_end = m.coverage_end
                                  AND r.threshold = \(Self.thresholdCase) AND r.channel = ?)
                ORDER BY m.uuid LIMIT ?
                """,
                Self.thresholdBinds(now) + [.int(now - Reminder.endedWindow), .int(now + 7 * 86_400), .text(cursor?.uuidString ?? "")]
                    + Self.thresholdBinds(now) + [.text(channel), .int(Int64(limit))]
            )
        }
        return try rows.map { row in
            guard let uuid = UUID(uuidString: try row.text("uuid")), let threshold = Reminder.Threshold(rawValue: try row.text("threshold")) else {
                throw SQLError.unexpectedValue("threshold")
            }
            let coverageEnd = try row.int("coverage_end")
            let reminder = Reminder(
                id: Reminder.id(memberUUID: uuid, coverageEnd: coverageEnd, threshold: threshold, channel: channel),
                memberUUID: uuid,
                coverageEnd: coverageEnd,
                threshold: threshold,
                channel: channel,
                state: .pending,
                attempts: 0,
                nextAttemptAt: now,
                lastError: nil,
                createdAt: now,
                deliveredAt: nil
            )
            return DueReminder(
                reminder: reminder,
                membershipID: try row.text("membership_id"),
                name: try row.text("name"),
                language: try row.text("language"),
                currentCoverageEnd: coverageEnd
            )
        }
    }

    public func leaseReminders(channel: String, owner: String, limit: Int, now: Int64, leaseSeconds: Int64) async throws -> [DueReminder] {
        let skipLocked = database.dialect.skipLockedClause
        return try await database.write { db in
            let leased = try await db.query(
                """
                UPDATE reminders SET leased_until = ?, lease_owner = ?, attempts = attempts + 1, updated_at = ?
                WHERE id IN (SELECT id FROM reminders
                             WHERE channel = ? AND state IN ('pending', 'unknown') AND next_attempt_at <= ?
                               AND (leased_until IS NULL OR leased_until <= ?)
                             ORDER BY next_attempt_at LIMIT ?\(skipLocked))
                RETURNING \(Self.reminderColumns)
                """,
                [.int(now + leaseSeconds), .text(owner), .int(now), .text(channel), .int(now), .int(now), .int(Int64(limit))]
            )
            guard !leased.isEmpty else { return [] }
            let memberUUIDs = try leased.map { try $0.text("member_uuid") }
            let uuids = Set(memberUUIDs)
            let members = try await db.query(
                "SELECT uuid, membership_id, name, language, coverage_end FROM members WHERE uuid IN (\(uuids.map { _ in "?" }.joined(separator: ", ")))",
                uuids.map(SQLValue.text)
            )
            var byUUID: [String: SQLRow] = [:]
            for row in members { byUUID[try row.text("uuid")] = row }
            return try zip(leased, memberUUIDs).map { row, memberUUID in
                let reminder = try Self.reminder(row)
                guard let member = byUUID[memberUUID] else { throw SQLError.unexpectedValue("member_uuid") }
                return DueReminder(
                    reminder: reminder,
                    membershipID: try member.text("membership_id"),
                    name: try member.text("name"),
                    language: try member.text("language"),
                    currentCoverageEnd: try member.optionalInt("coverage_end")
                )
            }
        }
    }

    public func renewReminderLeases(ids: [String], owner: String, now: Int64, leaseSeconds: Int64) async throws -> Set<String> {
        var renewed = Set<String>()
        for start in stride(from: 0, to: ids.count, by: 500) {
            let chunk = ids[start..<min(start + 500, ids.count)]
            let rows = try await database.writeStatement(
                """
                UPDATE reminders SET leased_until = ?, updated_at = ?
                WHERE lease_owner = ? AND state IN ('pending', 'unknown') AND id IN (\(chunk.map { _ in "?" }.joined(separator: ", ")))
                RETURNING id
                """,
                [.int(now + leaseSeconds), .int(now), .text(owner)] + chunk.map(SQLValue.text)
            )
            for row in rows { renewed.insert(try row.text("id")) }
        }
        return renewed
    }

    public func settleReminders(
        _ outcomes: [(reminder: Reminder, outcome: ReminderOutcome)],
        owner: String,
        schedule: RetrySchedule,
        now: Int64
    ) async throws -> [Reminder.State] {
        // Reminders that end alike (delivered, superseded, failed or retried with one reason at one time) are
        // settled by one statement: most of a batch is delivered, so a batch is mostly one UPDATE.
        var states: [Reminder.State] = []
        var groups: [[SQLValue]: [String]] = [:]
        var order: [[SQLValue]] = []
        for (reminder, outcome) in outcomes {
            let state: Reminder.State
            var nextAttempt = reminder.nextAttemptAt
            var error: String?
            switch outcome {
            case .delivered: state = .delivered
            case .superseded: state = .superseded
            case .failed(let reason):
                state = .failed
                error = reason
            case .retry(let reason, let sent, let retryAfter):
                error = reason
                if let next = schedule.nextAttempt(after: reminder.attempts, now: now, retryAfter: retryAfter) {
                    state = sent ? .unknown : .pending
                    nextAttempt = next
                } else {
                    state = .exhausted
                }
            }
            states.append(state)
            let values: [SQLValue] = [
                .text(state.rawValue), state.isOpen ? .int(nextAttempt) : .null,
                error.map { .text(String($0.prefix(500))) } ?? .null, state == .delivered ? .int(now) : .null,
            ]
            if groups[values] == nil { order.append(values) }
            groups[values, default: []].append(reminder.id)
        }
        var settled: [ReminderDayKey: Int] = [:]
        for ((reminder, _), state) in zip(outcomes, states) {
            settled[ReminderDayKey(channel: reminder.channel, outcome: state.isOpen ? "retried" : state.rawValue), default: 0] += 1
        }
        var statements: [SQLStatement] = []
        for values in order {
            for ids in stride(from: 0, to: groups[values]!.count, by: 500).map({ Array(groups[values]![$0..<min($0 + 500, groups[values]!.count)]) })
            {
                statements.append(
                    SQLStatement(
                        """
                        UPDATE reminders SET state = ?, next_attempt_at = COALESCE(?, next_attempt_at), last_error = ?, delivered_at = ?, leased_until = NULL, lease_owner = NULL,
                            updated_at = ? WHERE lease_owner = ? AND id IN (\(ids.map { _ in "?" }.joined(separator: ", ")))
                        """,
                        values + [.int(now), .text(owner)] + ids.map(SQLValue.text)
                    )
                )
            }
        }
        let delivered = zip(outcomes, states).filter { $1 == .delivered }.map(\.0.reminder)
        if !statements.isEmpty {
            // The subscription figures read the reminders as they were leased: first, in a batch of one snapshot.
            try await database.writeBatch(
                SubscriptionSummaries.remindersDelivered(delivered, owner: owner, now: now) + statements
                    + ConsoleSummaries.remindersSettled(settled, now: now)
            )
        }
        return states
    }

    public func nextOpenReminderTime(channel: String) async throws -> Int64? {
        try await database.read { db in
            try await db.query(
                """
                SELECT MIN(CASE WHEN leased_until IS NOT NULL AND leased_until > next_attempt_at THEN leased_until ELSE next_attempt_at END) AS next
                FROM reminders WHERE channel = ? AND state IN ('pending', 'unknown')
                """,
                [.text(channel)]
            ).first?.optionalInt("next")
        }
    }

    public func openReminderCounts(channel: String, now: Int64) async throws -> (free: Int, leased: Int) {
        let row = try await database.read { db in
            try await db.query(
                """
                SELECT COALESCE(SUM(CASE WHEN leased_until IS NULL OR leased_until <= ? THEN 1 ELSE 0 END), 0) AS free,
                       COALESCE(SUM(CASE WHEN leased_until > ? THEN 1 ELSE 0 END), 0) AS leased
                FROM reminders WHERE channel = ? AND state IN ('pending', 'unknown')
                """,
                [.int(now), .int(now), .text(channel)]
            ).first
        }
        return (Int(try row?.int("free") ?? 0), Int(try row?.int("leased") ?? 0))
    }

    public func openReminders(ids: [String], now: Int64) async throws -> (free: Set<String>, leased: Set<String>) {
        var free: Set<String> = []
        var leased: Set<String> = []
        for chunk in stride(from: 0, to: ids.count, by: 500).map({ ids[$0..<min($0 + 500, ids.count)] }) {
            let rows = try await database.read { db in
                try await db.query(
                    """
                    SELECT id, CASE WHEN leased_until > ? THEN 1 ELSE 0 END AS leased FROM reminders
                    WHERE state IN ('pending', 'unknown') AND id IN (\(Array(repeating: "?", count: chunk.count).joined(separator: ", ")))
                    """,
                    [.int(now)] + chunk.map { .text($0) }
                )
            }
            for row in rows {
                if try row.int("leased") == 1 { leased.insert(try row.text("id")) } else { free.insert(try row.text("id")) }
            }
        }
        return (free, leased)
    }

    public func reminderCounts(channel: String?) async throws -> [Reminder.State: Int] {
        let rows = try await database.read { db in
            try await db.query(
                "SELECT state, COUNT(*) AS count FROM reminders\(channel == nil ? "" : " WHERE channel = ?") GROUP BY state",
                channel.map { [.text($0)] } ?? []
            )
        }
        var counts: [Reminder.State: Int] = [:]
        for row in rows {
            if let state = Reminder.State(rawValue: try row.text("state")) { counts[state] = Int(try row.int("count")) }
        }
        return counts
    }

    public func reminders(in states: [Reminder.State], limit: Int) async throws -> [Reminder] {
        guard !states.isEmpty else { return [] }
        return try await database.read { db in
            try await db.query(
                "SELECT \(Self.reminderColumns) FROM reminders WHERE state IN (\(states.map { _ in "?" }.joined(separator: ", "))) ORDER BY updated_at DESC, id LIMIT ?",
                states.map { .text($0.rawValue) } + [.int(Int64(limit))]
            ).map(Self.reminder)
        }
    }

    public func requeueReminders(states: [Reminder.State], created: ClosedRange<Int64>?, ids: [String], now: Int64) async throws -> Int {
        let reopenable = states.filter { $0 != .delivered && $0 != .superseded }
        var conditions: [String] = []
        var binds: [SQLValue] = [.int(now), .int(now)]
        if !reopenable.isEmpty {
            conditions.append("state IN (\(reopenable.map { _ in "?" }.joined(separator: ", ")))")
            binds += reopenable.map { .text($0.rawValue) }
        } else {
            conditions.append("state IN ('pending', 'unknown', 'failed', 'exhausted')")
        }
        if let created {
            conditions.append("created_at >= ? AND created_at <= ?")
            binds += [.int(created.lowerBound), .int(created.upperBound)]
        }
        if !ids.isEmpty {
            conditions.append("id IN (\(ids.map { _ in "?" }.joined(separator: ", ")))")
            binds += ids.map(SQLValue.text)
        }
        let rows = try await database.writeStatement(
            """
            UPDATE reminders SET state = 'pending', attempts = 0, next_attempt_at = ?, leased_until = NULL, lease_owner = NULL, updated_at = ?
            WHERE \(conditions.joined(separator: " AND ")) RETURNING id
            """,
            binds
        )
        return rows.count
    }

    private static let reminderColumns =
        "id, member_uuid, coverage_end, threshold, channel, state, attempts, next_attempt_at, last_error, created_at, delivered_at"

    private static func reminder(_ row: SQLRow) throws -> Reminder {
        guard let uuid = UUID(uuidString: try row.text("member_uuid")),
            let threshold = Reminder.Threshold(rawValue: try row.text("threshold")),
            let state = Reminder.State(rawValue: try row.text("state"))
        else { throw SQLError.unexpectedValue("reminders") }
        return Reminder(
            id: try row.text("id"),
            memberUUID: uuid,
            coverageEnd: try row.int("coverage_end"),
            threshold: threshold,
            channel: try row.text("channel"),
            state: state,
            attempts: Int(try row.int("attempts")),
            nextAttemptAt: try row.int("next_attempt_at"),
            lastError: try row.optionalText("last_error"),
            createdAt: try row.int("created_at"),
            deliveredAt: try row.optionalInt("delivered_at")
        )
    }
}
