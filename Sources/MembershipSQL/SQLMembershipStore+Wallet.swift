public import Foundation
public import Membership

/// Apple Wallet passes, their devices and logs.
extension SQLMembershipStore {
    public func issueWalletPass(member: UUID, tokenHash: String, now: Int64) async throws {
        // A pass just issued shows the member as they are: nothing to push until the next change.
        _ = try await database.writeStatement(
            """
            INSERT INTO wallet_passes (member_uuid, token_hash, issued_at, pushed_version)
            VALUES (?, ?, ?, (SELECT ledger_version FROM members WHERE uuid = ?))
            ON CONFLICT (member_uuid) DO UPDATE SET token_hash = excluded.token_hash, issued_at = excluded.issued_at
            """,
            [.text(member.uuidString), .text(tokenHash), .int(now), .text(member.uuidString)]
        )
    }

    public func leaseWalletUpdates(owner: String, now: Int64, leaseSeconds: Int64, limit: Int) async throws -> [WalletUpdate] {
        try await leaseUpdates(in: "wallet_passes", owner: owner, now: now, leaseSeconds: leaseSeconds, limit: limit, withRegistrations: true)
    }

    public func settleWalletUpdate(_ update: WalletUpdate, owner: String, retryAt: Int64?, error: String?, goneDevices: [String]) async throws {
        try await settleUpdate(in: "wallet_passes", update, owner: owner, retryAt: retryAt, error: error, goneDevices: goneDevices)
    }

    public func recordGoogleWalletObject(member: UUID, now: Int64) async throws {
        _ = try await database.writeStatement(
            """
            INSERT INTO google_wallet_objects (member_uuid, issued_at, pushed_version) VALUES (?, ?, (SELECT ledger_version FROM members WHERE uuid = ?))
            ON CONFLICT (member_uuid) DO NOTHING
            """,
            [.text(member.uuidString), .int(now), .text(member.uuidString)]
        )
    }

    public func putReminderOnWalletPass(member: UUID, reminder: String, now: Int64) async throws -> Bool {
        !(try await database.writeStatement(
            """
            UPDATE wallet_passes SET reminder = ?, reminder_seq = reminder_seq + 1
            WHERE member_uuid = ? AND EXISTS (SELECT 1 FROM wallet_registrations r WHERE r.member_uuid = wallet_passes.member_uuid)
            RETURNING member_uuid
            """,
            [.text(reminder), .text(member.uuidString)]
        )).isEmpty
    }

    public func walletPassReminder(member: UUID) async throws -> String? {
        try await database.read { db in
            try await db.query("SELECT reminder FROM wallet_passes WHERE member_uuid = ?", [.text(member.uuidString)]).first?.optionalText("reminder")
        }
    }

    public func leaseGoogleWalletUpdates(owner: String, now: Int64, leaseSeconds: Int64, limit: Int) async throws -> [WalletUpdate] {
        try await leaseUpdates(
            in: "google_wallet_objects",
            owner: owner,
            now: now,
            leaseSeconds: leaseSeconds,
            limit: limit,
            withRegistrations: false
        )
    }

    public func settleGoogleWalletUpdate(_ update: WalletUpdate, owner: String, retryAt: Int64?, error: String?) async throws {
        try await settleUpdate(in: "google_wallet_objects", update, owner: owner, retryAt: retryAt, error: error, goneDevices: [])
    }

    /// Leases the due rows of an outbox `table` (keyed by member, holding `pushed_version` and the lease columns).
    private func leaseUpdates(
        in table: String,
        owner: String,
        now: Int64,
        leaseSeconds: Int64,
        limit: Int,
        withRegistrations: Bool
    ) async throws
        -> [WalletUpdate]
    {
        // An Apple pass is also due when a reminder was put on it since its devices were last told.
        let reminderDue = withRegistrations ? " OR w.reminder_seq > w.reminder_pushed_seq" : ""
        let reminderSeq = withRegistrations ? "reminder_seq" : "0"
        return try await database.write { db in
            let leased = try await db.query(
                """
                UPDATE \(table) SET leased_until = ?, lease_owner = ?
                WHERE member_uuid IN (
                    SELECT w.member_uuid FROM \(table) w JOIN members m ON m.uuid = w.member_uuid
                    WHERE (m.ledger_version > w.pushed_version\(reminderDue)) AND w.next_attempt_at <= ? AND (w.leased_until IS NULL OR w.leased_until <= ?)
                    ORDER BY w.next_attempt_at LIMIT ?)
                RETURNING member_uuid, attempts, \(reminderSeq) AS reminder_seq, (SELECT ledger_version FROM members WHERE uuid = member_uuid) AS version
                """,
                [.int(now + leaseSeconds), .text(owner), .int(now), .int(now), .int(Int64(limit))]
            )
            var updates: [WalletUpdate] = []
            for row in leased {
                let text = try row.text("member_uuid")
                guard let member = UUID(uuidString: text) else { throw SQLError.unexpectedValue("\(table).member_uuid") }
                var registrations: [WalletRegistration] = []
                if withRegistrations {
                    registrations = try await db.query(
                        "SELECT device_id, push_token FROM wallet_registrations WHERE member_uuid = ? ORDER BY device_id",
                        [.text(text)]
                    ).map { WalletRegistration(device: try $0.text("device_id"), pushToken: try $0.text("push_token")) }
                }
                updates.append(
                    WalletUpdate(
                        member: member,
                        version: try row.int("version"),
                        attempts: try row.int("attempts"),
                        registrations: registrations,
                        reminderSeq: try row.int("reminder_seq")
                    )
                )
            }
            return updates
        }
    }

    /// Settles a leased row of an outbox `table`: pushed up to its version, or retried at `retryAt`.
    private func settleUpdate(
        in table: String,
        _ update: WalletUpdate,
        owner: String,
        retryAt: Int64?,
        error: String?,
        goneDevices: [String]
    ) async throws {
        let reminderPushed =
            table == "wallet_passes"
            ? ", reminder_pushed_seq = CASE WHEN reminder_pushed_seq > \(update.reminderSeq) THEN reminder_pushed_seq ELSE \(update.reminderSeq) END"
            : ""
        try await database.write { db in
            let member = update.member.uuidString
            if let retryAt {
                _ = try await db.query(
                    """
                    UPDATE \(table) SET attempts = attempts + 1, next_attempt_at = ?, last_error = ?, leased_until = NULL, lease_owner = NULL
                    WHERE member_uuid = ? AND lease_owner = ?
                    """,
                    [.int(retryAt), error.map(SQLValue.text) ?? .null, .text(member), .text(owner)]
                )
            } else {
                _ = try await db.query(
                    """
                    UPDATE \(table) SET pushed_version = CASE WHEN pushed_version > ? THEN pushed_version ELSE ? END, attempts = 0,
                        next_attempt_at = 0, last_error = NULL, leased_until = NULL, lease_owner = NULL\(reminderPushed)
                    WHERE member_uuid = ? AND lease_owner = ?
                    """,
                    [.int(update.version), .int(update.version), .text(member), .text(owner)]
                )
            }
            for device in goneDevices {
                _ = try await db.query("DELETE FROM wallet_registrations WHERE device_id = ? AND member_uuid = ?", [.text(device), .text(member)])
            }
        }
    }

    public func pendingWalletUpdates() async throws -> Int {
        try await database.read { db in
            Int(
                try await db.query(
                    """
                    SELECT COUNT(*) AS pending FROM wallet_passes w JOIN members m ON m.uuid = w.member_uuid
                    WHERE m.ledger_version > w.pushed_version OR w.reminder_seq > w.reminder_pushed_seq
                    """,
                    []
                ).first?.int("pending") ?? 0
            )
        }
    }

    public func walletPassTokenHash(member: UUID) async throws -> String? {
        try await database.read { db in
            try await db.query("SELECT token_hash FROM wallet_passes WHERE member_uuid = ?", [.text(member.uuidString)]).first?.text("token_hash")
        }
    }

    public func registerWalletDevice(_ device: String, member: UUID, pushToken: String, now: Int64) async throws -> Bool {
        try await database.write { db in
            let inserted = try await db.query(
                """
                INSERT INTO wallet_registrations (device_id, member_uuid, push_token, registered_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (device_id, member_uuid) DO NOTHING RETURNING device_id
                """,
                [.text(device), .text(member.uuidString), .text(pushToken), .int(now)]
            )
            guard inserted.isEmpty else { return true }
            _ = try await db.query(
                "UPDATE wallet_registrations SET push_token = ?, registered_at = ? WHERE device_id = ? AND member_uuid = ?",
                [.text(pushToken), .int(now), .text(device), .text(member.uuidString)]
            )
            return false
        }
    }

    public func unregisterWalletDevice(_ device: String, member: UUID) async throws -> Bool {
        !(try await database.writeStatement(
            "DELETE FROM wallet_registrations WHERE device_id = ? AND member_uuid = ? RETURNING device_id",
            [.text(device), .text(member.uuidString)]
        )).isEmpty
    }

    public func walletPassesUpdated(device: String, since: Int64?) async throws -> [(member: UUID, changedAt: Int64)] {
        let rows = try await database.read { db in
            try await db.query(
                """
                SELECT r.member_uuid AS member_uuid,
                    COALESCE((SELECT MAX(c.changed_at) FROM member_changes c WHERE c.member_uuid = r.member_uuid), m.created_at) AS changed_at
                FROM wallet_registrations r JOIN members m ON m.uuid = r.member_uuid WHERE r.device_id = ? ORDER BY r.member_uuid
                """,
                [.text(device)]
            )
        }
        return try rows.compactMap { row in
            guard let member = UUID(uuidString: try row.text("member_uuid")) else {
                throw SQLError.unexpectedValue("wallet_registrations.member_uuid")
            }
            let changedAt = try row.int("changed_at")
            return changedAt > (since ?? .min) ? (member, changedAt) : nil
        }
    }

    public func walletPassLastChange(member: UUID) async throws -> Int64? {
        try await database.read { db in
            try await db.query(
                """
                SELECT COALESCE((SELECT MAX(c.changed_at) FROM member_changes c WHERE c.member_uuid = m.uuid), m.created_at) AS changed_at
                FROM members m WHERE m.uuid = ?
                """,
                [.text(member.uuidString)]
            ).first?.int("changed_at")
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
