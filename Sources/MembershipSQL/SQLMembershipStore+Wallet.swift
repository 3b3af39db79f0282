public import Foundation
public import Membership

/// Apple Wallet passes, their devices and logs.
extension SQLMembershipStore {
    public func issueWalletPass(member: UUID, token: String, tokenHash: String, now: Int64) async throws -> String {
        // A pass just issued shows the member as they are: nothing to push until the next change. A pass issued
        // before keeps its token (one Wallet may already hold); one from before tokens were kept gets this one.
        try await database.write { db in
            let inserted = try await db.query(
                """
                INSERT INTO wallet_passes (member_uuid, token_hash, token, issued_at, modified_at, pushed_stamp, pushed_version)
                VALUES (?, ?, ?, ?, ?, ?, (SELECT ledger_version FROM members WHERE uuid = ?))
                ON CONFLICT (member_uuid) DO NOTHING RETURNING token
                """,
                [.text(member.uuidString), .text(tokenHash), .text(token), .int(now), .int(now), .int(now), .text(member.uuidString)]
            )
            if !inserted.isEmpty {
                try await db.run(ConsoleSummaries.walletTally(.applePasses, by: 1))
                return token
            }
            let kept = try await db.query(
                """
                UPDATE wallet_passes SET token_hash = CASE WHEN token IS NULL THEN ? ELSE token_hash END, token = COALESCE(token, ?)
                WHERE member_uuid = ? RETURNING token
                """,
                [.text(tokenHash), .text(token), .text(member.uuidString)]
            )
            return try kept.first?.text("token") ?? token
        }
    }

    /// Marks `member`'s pass, if any, as changed at `now`, in the change's own transaction: its stamp becomes
    /// `now`, or the one after its previous stamp when that is not earlier (two changes in one second differ).
    static func touchWalletPass(of member: UUID, now: Int64) -> SQLStatement {
        SQLStatement(
            "UPDATE wallet_passes SET modified_at = CASE WHEN modified_at >= ? THEN modified_at + 1 ELSE ? END WHERE member_uuid = ?",
            [.int(now), .int(now), .text(member.uuidString)]
        )
    }

    public func leaseWalletUpdates(owner: String, now: Int64, leaseSeconds: Int64, limit: Int) async throws -> [WalletUpdate] {
        try await database.write { db in
            let leased = try await db.query(
                """
                UPDATE wallet_passes SET leased_until = ?, lease_owner = ?
                WHERE member_uuid IN (
                    SELECT w.member_uuid FROM wallet_passes w
                    WHERE w.modified_at > w.pushed_stamp AND w.next_attempt_at <= ? AND (w.leased_until IS NULL OR w.leased_until <= ?)
                    ORDER BY w.next_attempt_at LIMIT ?)
                RETURNING member_uuid, attempts, modified_at
                """,
                [.int(now + leaseSeconds), .text(owner), .int(now), .int(now), .int(Int64(limit))]
            )
            var updates: [WalletUpdate] = []
            for row in leased {
                let text = try row.text("member_uuid")
                guard let member = UUID(uuidString: text) else { throw SQLError.unexpectedValue("wallet_passes.member_uuid") }
                let stamp = try row.int("modified_at")
                // Only the devices not yet told of this stamp: one device's retry pushes no other again.
                let registrations = try await db.query(
                    "SELECT device_id, push_token FROM wallet_registrations WHERE member_uuid = ? AND pushed_stamp < ? ORDER BY device_id",
                    [.text(text), .int(stamp)]
                ).map { WalletRegistration(device: try $0.text("device_id"), pushToken: try $0.text("push_token")) }
                updates.append(WalletUpdate(member: member, version: stamp, attempts: try row.int("attempts"), registrations: registrations))
            }
            return updates
        }
    }

    public func settleWalletUpdate(_ update: WalletUpdate, owner: String, outcome: WalletPushOutcome, now: Int64) async throws {
        try await database.write { db in
            let member = update.member.uuidString
            for device in outcome.told {
                _ = try await db.query(
                    """
                    UPDATE wallet_registrations SET pushed_stamp = CASE WHEN pushed_stamp > ? THEN pushed_stamp ELSE ? END
                    WHERE device_id = ? AND member_uuid = ?
                    """,
                    [.int(update.version), .int(update.version), .text(device), .text(member)]
                )
            }
            for device in outcome.gone {
                let deleted = try await db.query(
                    "DELETE FROM wallet_registrations WHERE device_id = ? AND member_uuid = ? RETURNING device_id",
                    [.text(device), .text(member)]
                )
                if !deleted.isEmpty { try await db.run(ConsoleSummaries.walletTally(.appleDevices, by: -1)) }
            }
            let counted = ConsoleSummaries.pushSettled(
                platform: "apple",
                outcome: Self.pushOutcome(retryAt: outcome.retryAt, error: outcome.error),
                table: "wallet_passes",
                member: update.member,
                owner: owner,
                now: now
            )
            _ = try await db.query(counted.sql, counted.binds)
            let settle = Self.settling(
                "wallet_passes",
                pushedColumn: "pushed_stamp",
                update,
                owner: owner,
                retryAt: outcome.retryAt,
                error: outcome.error
            )
            _ = try await db.query(settle.sql, settle.binds)
        }
    }

    public func recordGoogleWalletObject(member: UUID, shownVersion: Int64, now: Int64) async throws {
        try await database.write { db in
            let inserted = try await db.query(
                """
                INSERT INTO google_wallet_objects (member_uuid, issued_at, pushed_version) VALUES (?, ?, ?)
                ON CONFLICT (member_uuid) DO NOTHING RETURNING member_uuid
                """,
                [.text(member.uuidString), .int(now), .int(shownVersion)]
            )
            if !inserted.isEmpty { try await db.run(ConsoleSummaries.walletTally(.googleObjects, by: 1)) }
        }
    }

    public func putReminderOnWalletPass(member: UUID, reminder: WalletReminder, now: Int64) async throws -> Bool {
        !(try await database.writeStatement(
            """
            UPDATE wallet_passes SET reminder = ?, reminder_seq = reminder_seq + 1,
                modified_at = CASE WHEN modified_at >= ? THEN modified_at + 1 ELSE ? END
            WHERE member_uuid = ? AND EXISTS (SELECT 1 FROM wallet_registrations r WHERE r.member_uuid = wallet_passes.member_uuid)
            RETURNING member_uuid
            """,
            [.text(reminder.storedText), .int(now), .int(now), .text(member.uuidString)]
        )).isEmpty
    }

    public func walletPassReminder(member: UUID) async throws -> WalletReminder? {
        let text = try await database.read { db in
            try await db.query("SELECT reminder FROM wallet_passes WHERE member_uuid = ?", [.text(member.uuidString)]).first?.optionalText("reminder")
        }
        return try text.map(Self.walletReminder)
    }

    public func walletPassView(member: UUID) async throws -> WalletPassView? {
        let row = try await database.read { db in
            try await db.query(
                """
                SELECT \(MemberRecord.select("m")), \(Self.headColumns), w.token_hash, w.modified_at, w.reminder
                FROM members m LEFT JOIN wallet_passes w ON w.member_uuid = m.uuid WHERE m.uuid = ?
                """,
                [.text(member.uuidString)]
            ).first
        }
        guard let row else { return nil }
        return WalletPassView(
            head: try Self.ledgerHead(row),
            tokenHash: try row.optionalText("token_hash"),
            lastChange: try row.optionalInt("modified_at"),
            reminder: try row.optionalText("reminder").map(Self.walletReminder)
        )
    }

    private static func walletReminder(_ text: String) throws -> WalletReminder {
        guard let reminder = WalletReminder(storedText: text) else { throw SQLError.unexpectedValue("wallet_passes.reminder") }
        return reminder
    }

    public func leaseGoogleWalletUpdates(owner: String, now: Int64, leaseSeconds: Int64, limit: Int) async throws -> [WalletUpdate] {
        try await database.write { db in
            let leased = try await db.query(
                """
                UPDATE google_wallet_objects SET leased_until = ?, lease_owner = ?
                WHERE member_uuid IN (
                    SELECT w.member_uuid FROM google_wallet_objects w JOIN members m ON m.uuid = w.member_uuid
                    WHERE m.ledger_version > w.pushed_version AND w.next_attempt_at <= ? AND (w.leased_until IS NULL OR w.leased_until <= ?)
                    ORDER BY w.next_attempt_at LIMIT ?)
                RETURNING member_uuid, attempts, (SELECT ledger_version FROM members WHERE uuid = member_uuid) AS version
                """,
                [.int(now + leaseSeconds), .text(owner), .int(now), .int(now), .int(Int64(limit))]
            )
            return try leased.map { row in
                guard let member = UUID(uuidString: try row.text("member_uuid")) else {
                    throw SQLError.unexpectedValue("google_wallet_objects.member_uuid")
                }
                return WalletUpdate(member: member, version: try row.int("version"), attempts: try row.int("attempts"), registrations: [])
            }
        }
    }

    public func settleGoogleWalletUpdate(_ update: WalletUpdate, owner: String, retryAt: Int64?, error: String?, now: Int64) async throws {
        let counted = ConsoleSummaries.pushSettled(
            platform: "google",
            outcome: Self.pushOutcome(retryAt: retryAt, error: error),
            table: "google_wallet_objects",
            member: update.member,
            owner: owner,
            now: now
        )
        let settle = Self.settling("google_wallet_objects", pushedColumn: "pushed_version", update, owner: owner, retryAt: retryAt, error: error)
        try await database.writeBatch([counted, settle])
    }

    /// How a push is counted: tried again later, given up with an error, or delivered.
    static func pushOutcome(retryAt: Int64?, error: String?) -> String {
        retryAt != nil ? "retried" : error != nil ? "failed" : "delivered"
    }

    /// Settles a leased row of an outbox `table` (a trusted name), only for the lease's holder: tried again at
    /// `retryAt` with `error` on record, or done with the update's version in `pushedColumn`.
    static func settling(
        _ table: String,
        pushedColumn: String,
        _ update: WalletUpdate,
        owner: String,
        retryAt: Int64?,
        error: String?
    ) -> SQLStatement {
        let keys: [SQLValue] = [.text(update.member.uuidString), .text(owner)]
        if let retryAt {
            return SQLStatement(
                """
                UPDATE \(table) SET attempts = attempts + 1, next_attempt_at = ?, last_error = ?, leased_until = NULL, lease_owner = NULL
                WHERE member_uuid = ? AND lease_owner = ?
                """,
                [.int(retryAt), error.map(SQLValue.text) ?? .null] + keys
            )
        }
        return SQLStatement(
            """
            UPDATE \(table) SET \(pushedColumn) = CASE WHEN \(pushedColumn) > ? THEN \(pushedColumn) ELSE ? END, attempts = 0,
                next_attempt_at = 0, last_error = NULL, leased_until = NULL, lease_owner = NULL
            WHERE member_uuid = ? AND lease_owner = ?
            """,
            [.int(update.version), .int(update.version)] + keys
        )
    }

    public func walletOutboxStatus() async throws -> WalletOutboxStatus {
        try await database.read { db in
            func counts(_ table: String, waiting: String, since: String) async throws -> WalletOutboxCounts {
                let row = try await db.query(
                    """
                    SELECT COUNT(*) AS total, COALESCE(SUM(CASE WHEN \(waiting) THEN 1 ELSE 0 END), 0) AS waiting,
                        MIN(CASE WHEN \(waiting) THEN \(since) END) AS oldest,
                        COALESCE(SUM(CASE WHEN w.last_error IS NOT NULL THEN 1 ELSE 0 END), 0) AS failing, MAX(w.last_error) AS last_error
                    FROM \(table) w JOIN members m ON m.uuid = w.member_uuid
                    """,
                    []
                )[0]
                return WalletOutboxCounts(
                    total: Int(try row.int("total")),
                    waiting: Int(try row.int("waiting")),
                    oldestWaitingSince: try row.optionalInt("oldest"),
                    failing: Int(try row.int("failing")),
                    lastError: try row.optionalText("last_error")
                )
            }
            let apple = try await counts("wallet_passes", waiting: "w.modified_at > w.pushed_stamp", since: "w.modified_at")
            let google = try await counts(
                "google_wallet_objects",
                waiting: "m.ledger_version > w.pushed_version",
                since: "(SELECT MAX(c.changed_at) FROM member_changes c WHERE c.member_uuid = w.member_uuid)"
            )
            let devices = try await db.query("SELECT COUNT(*) AS devices FROM wallet_registrations", [])[0].int("devices")
            return WalletOutboxStatus(apple: apple, appleDevices: Int(devices), google: google)
        }
    }

    public func walletPassTokenHash(member: UUID) async throws -> String? {
        try await database.read { db in
            try await db.query("SELECT token_hash FROM wallet_passes WHERE member_uuid = ?", [.text(member.uuidString)]).first?.text("token_hash")
        }
    }

    public func registerWalletDevice(_ device: String, member: UUID, pushToken: String, now: Int64) async throws -> WalletDeviceRegistration {
        try await database.write { db in
            let updated = try await db.query(
                "UPDATE wallet_registrations SET push_token = ?, registered_at = ? WHERE device_id = ? AND member_uuid = ? RETURNING device_id",
                [.text(pushToken), .int(now), .text(device), .text(member.uuidString)]
            )
            guard updated.isEmpty else { return .updated }
            let count = try await db.query("SELECT COUNT(*) AS devices FROM wallet_registrations WHERE member_uuid = ?", [.text(member.uuidString)])
            guard try (count.first?.int("devices") ?? 0) < Int64(WalletPassLimits.maxDevices) else { return .full }
            // The device registers with the pass it just got: it has been told of the pass as it is.
            _ = try await db.query(
                """
                INSERT INTO wallet_registrations (device_id, member_uuid, push_token, registered_at, pushed_stamp)
                VALUES (?, ?, ?, ?, (SELECT modified_at FROM wallet_passes WHERE member_uuid = ?))
                """,
                [.text(device), .text(member.uuidString), .text(pushToken), .int(now), .text(member.uuidString)]
            )
            try await db.run(ConsoleSummaries.walletTally(.appleDevices, by: 1))
            return .created
        }
    }

    public func unregisterWalletDevice(_ device: String, member: UUID) async throws -> Bool {
        try await database.write { db in
            let deleted = try await db.query(
                "DELETE FROM wallet_registrations WHERE device_id = ? AND member_uuid = ? RETURNING device_id",
                [.text(device), .text(member.uuidString)]
            )
            if !deleted.isEmpty { try await db.run(ConsoleSummaries.walletTally(.appleDevices, by: -1)) }
            return !deleted.isEmpty
        }
    }

    public func walletPassesUpdated(device: String, since: Int64?) async throws -> [(member: UUID, changedAt: Int64)] {
        let rows = try await database.read { db in
            try await db.query(
                """
                SELECT r.member_uuid AS member_uuid, w.modified_at AS changed_at
                FROM wallet_registrations r JOIN wallet_passes w ON w.member_uuid = r.member_uuid
                WHERE r.device_id = ? AND w.modified_at > ? ORDER BY r.member_uuid
                """,
                [.text(device), .int(since ?? .min)]
            )
        }
        return try rows.map { row in
            guard let member = UUID(uuidString: try row.text("member_uuid")) else {
                throw SQLError.unexpectedValue("wallet_registrations.member_uuid")
            }
            return (member, try row.int("changed_at"))
        }
    }

    public func walletPassLastChange(member: UUID) async throws -> Int64? {
        try await database.read { db in
            try await db.query("SELECT modified_at FROM wallet_passes WHERE member_uuid = ?", [.text(member.uuidString)]).first?.int("modified_at")
        }
    }

    public func walletRegistrations(member: UUID) async throws -> [(device: String, pushToken: String)] {
        try await database.read { db in
            try await db.query(
                "SELECT device_id, push_token FROM wallet_registrations WHERE member_uuid = ? ORDER BY device_id",
                [.text(member.uuidString)]
            ).map { (try $0.text("device_id"), try $0.text("push_token")) }
        }
    }

    public func keepWalletLogs(_ lines: [String], now: Int64) async throws {
        guard !lines.isEmpty else { return }
        try await database.write { db in
            for line in lines.prefix(WalletLog.maxPerRequest) {
                _ = try await db.query(
                    "INSERT INTO wallet_logs (received_at, line) VALUES (?, ?)",
                    [.int(now), .text(String(line.prefix(WalletLog.maxLineLength)))]
                )
            }
            _ = try await db.query(
                "DELETE FROM wallet_logs WHERE seq <= (SELECT MAX(seq) FROM wallet_logs) - ?",
                [.int(Int64(WalletLog.kept))]
            )
        }
    }

    public func walletLogs(limit: Int) async throws -> [String] {
        try await database.read { db in
            try await db.query("SELECT line FROM wallet_logs ORDER BY seq DESC LIMIT ?", [.int(Int64(limit))]).map { try $0.text("line") }
        }
    }
}
