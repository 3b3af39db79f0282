public import Foundation
public import Membership

/// The console's reads: summaries by day range (a few hundred rows each, see ``ConsoleSummaries``), members
/// by search and one member's history (by indexes), the vendor devices; its links and sessions.
extension SQLMembershipStore {
    public func salesByShop(from: Int64, to: Int64) async throws -> [SalesDay] {
        try await database.readReport { db in
            try await db.query(
                """
                SELECT s.vendor_id, MAX(v.name) AS name, CAST(SUM(s.sales) AS BIGINT) AS sales, CAST(SUM(s.months) AS BIGINT) AS months,
                    CAST(SUM(s.amount_dzd) AS BIGINT) AS amount_dzd, CAST(SUM(s.cancelled) AS BIGINT) AS cancelled
                FROM \(ConsoleSummaries.salesSource) s LEFT JOIN vendors v ON v.id = s.vendor_id
                WHERE s.day BETWEEN ? AND ? GROUP BY s.vendor_id
                """,
                [.int(from), .int(to)]
            ).map { row in
                let vendor = try row.text("vendor_id")
                return SalesDay(
                    day: from,
                    vendorID: vendor.isEmpty ? nil : UUID(uuidString: vendor),
                    vendorName: try row.optionalText("name"),
                    sales: try row.int("sales"),
                    months: try row.int("months"),
                    amountDZD: try row.int("amount_dzd"),
                    cancelled: try row.int("cancelled")
                )
            }
        }
    }

    public func salesDays(from: Int64, to: Int64, shops: [UUID?]) async throws -> (shops: [SalesDay], totals: [Int64: Int64]) {
        let ids = shops.prefix(50).map { SQLValue.text($0?.uuidString ?? "") }
        let named = ids.isEmpty ? "" : " AND vendor_id IN (\(ids.map { _ in "?" }.joined(separator: ", ")))"
        return try await database.readReport { db in
            let perShop = try await db.query(
                """
                SELECT day, vendor_id, CAST(SUM(sales) AS BIGINT) AS sales FROM \(ConsoleSummaries.salesSource) s
                WHERE day BETWEEN ? AND ?\(named) GROUP BY day, vendor_id
                """,
                [.int(from), .int(to)] + ids
            ).map { row in
                let vendor = try row.text("vendor_id")
                return SalesDay(
                    day: try row.int("day"),
                    vendorID: vendor.isEmpty ? nil : UUID(uuidString: vendor),
                    vendorName: nil,
                    sales: try row.int("sales"),
                    months: 0,
                    amountDZD: 0,
                    cancelled: 0
                )
            }
            var totals: [Int64: Int64] = [:]
            for row in try await db.query(
                "SELECT day, CAST(SUM(sales) AS BIGINT) AS sales FROM \(ConsoleSummaries.salesSource) s WHERE day BETWEEN ? AND ? GROUP BY day",
                [.int(from), .int(to)]
            ) {
                totals[try row.int("day")] = try row.int("sales")
            }
            return (ids.isEmpty ? [] : perShop, totals)
        }
    }

    public func coverageDays(from: Int64, to: Int64) async throws -> [CoverageDay] {
        try await database.readReport { db in
            try await db.query(
                """
                SELECT day, CAST(SUM(ending) AS BIGINT) AS ending, CAST(SUM(renewed) AS BIGINT) AS renewed
                FROM \(ConsoleSummaries.coverageSource) c WHERE day BETWEEN ? AND ? GROUP BY day ORDER BY day
                """,
                [.int(from), .int(to)]
            ).map { CoverageDay(day: try $0.int("day"), ending: try $0.int("ending"), renewed: try $0.int("renewed")) }
        }
    }

    public func subscriptionDays(from: Int64, to: Int64) async throws -> (before: [SubscriptionRow], days: [SubscriptionRow]) {
        @Sendable func row(_ row: SQLRow, day: Int64?) throws -> SubscriptionRow {
            SubscriptionRow(
                day: try day ?? row.int("day"),
                kind: try row.text("kind"),
                cohort: try row.int("cohort"),
                detail: try row.text("detail"),
                members: try row.int("members"),
                dzd: try row.int("dzd")
            )
        }
        let sums = "CAST(SUM(members) AS BIGINT) AS members, CAST(SUM(dzd) AS BIGINT) AS dzd"
        return try await database.readReport { db in
            let before = try await db.query(
                "SELECT kind, cohort, '' AS detail, \(sums) FROM \(SubscriptionSummaries.source) s WHERE day < ? AND cohort <> 0 GROUP BY kind, cohort",
                [.int(from)]
            )
            let days = try await db.query(
                "SELECT day, kind, cohort, detail, \(sums) FROM \(SubscriptionSummaries.source) s WHERE day BETWEEN ? AND ? GROUP BY day, kind, cohort, detail",
                [.int(from), .int(to)]
            )
            return (try before.map { try row($0, day: from - 1) }, try days.map { try row($0, day: nil) })
        }
    }

    public func reminderDays(from: Int64, to: Int64) async throws -> [OutcomeDay] {
        try await outcomeDays("reminder_days", "channel", from: from, to: to)
    }

    public func pushDays(from: Int64, to: Int64) async throws -> [OutcomeDay] {
        try await outcomeDays("push_days", "platform", from: from, to: to)
    }

    public func walletTallies() async throws -> WalletTallies {
        try await database.readReport { db in
            var tallies: [String: Int64] = [:]
            for row in try await db.query("SELECT kind, CAST(SUM(count) AS BIGINT) AS count FROM wallet_tallies GROUP BY kind", []) {
                tallies[try row.text("kind")] = try row.int("count")
            }
            let waiting = try await db.query("SELECT COUNT(*) AS count FROM wallet_passes WHERE modified_at > pushed_stamp", [])[0].int("count")
            let failing = try await db.query("SELECT COUNT(*) AS count FROM google_wallet_objects WHERE last_error IS NOT NULL", [])[0].int("count")
            return WalletTallies(
                applePasses: tallies[ConsoleSummaries.WalletTally.applePasses.rawValue] ?? 0,
                appleDevices: tallies[ConsoleSummaries.WalletTally.appleDevices.rawValue] ?? 0,
                googleObjects: tallies[ConsoleSummaries.WalletTally.googleObjects.rawValue] ?? 0,
                appleWaiting: waiting,
                googleFailing: failing
            )
        }
    }

    private func outcomeDays(_ table: String, _ source: String, from: Int64, to: Int64) async throws -> [OutcomeDay] {
        try await database.readReport { db in
            try await db.query(
                "SELECT day, \(source) AS source, outcome, count FROM \(table) WHERE day BETWEEN ? AND ? ORDER BY day, \(source), outcome",
                [.int(from), .int(to)]
            ).map {
                OutcomeDay(day: try $0.int("day"), source: try $0.text("source"), outcome: try $0.text("outcome"), count: try $0.int("count"))
            }
        }
    }

    public func reminderOutbox() async throws -> [ReminderOutbox] {
        // The open reminders' partial index, in channel order.
        try await database.readReport { db in
            try await db.query(
                """
                SELECT channel, COUNT(*) AS waiting, MIN(next_attempt_at) AS oldest FROM reminders
                WHERE state IN ('pending', 'unknown') GROUP BY channel ORDER BY channel
                """,
                []
            ).map { ReminderOutbox(channel: try $0.text("channel"), waiting: try $0.int("waiting"), oldestDueAt: try $0.optionalInt("oldest")) }
        }
    }

    public func counterDevices() async throws -> [CounterDevice] {
        let columns = CredentialRecord.columns.map { "c.\($0) AS \($0)" }.joined(separator: ", ")
        return try await database.readReport { db in
            try await db.query(
                """
                SELECT \(columns), c.last_sync_at AS last_sync_at, v.name AS vendor_name
                FROM credentials c JOIN vendors v ON v.id = c.vendor_id
                WHERE c.role = 'vendor' ORDER BY v.name, c.created_at, c.id
                """,
                []
            ).map {
                CounterDevice(
                    credential: try CredentialRecord.credential($0),
                    vendorName: try $0.text("vendor_name"),
                    lastSyncAt: try $0.optionalInt("last_sync_at")
                )
            }
        }
    }

    public func noteCounterSync(credentialID: UUID, at time: Int64) async throws {
        _ = try await database.writeStatement(
            "UPDATE credentials SET last_sync_at = ? WHERE id = ? AND (last_sync_at IS NULL OR last_sync_at < ?)",
            [.int(time), .text(credentialID.uuidString), .int(time)],
            durable: false
        )
    }

    static let standingColumns = MemberRecord.select("m") + ", m.coverage_end AS coverage_end, m.cards_valid_from AS cards_valid_from"

    static func standing(_ row: SQLRow) throws -> MemberStanding {
        MemberStanding(
            member: try MemberRecord.member(row),
            coverageEnd: try row.optionalInt("coverage_end"),
            cardsValidFrom: try row.int("cards_valid_from")
        )
    }

    public func memberStandings(membershipIDs: [String]) async throws -> [MemberStanding] {
        guard !membershipIDs.isEmpty else { return [] }
        let ids = Array(Set(membershipIDs)).prefix(500)
        return try await database.readReport { db in
            try await db.query(
                "SELECT \(Self.standingColumns) FROM members m WHERE m.membership_id IN (\(ids.map { _ in "?" }.joined(separator: ", ")))",
                ids.map(SQLValue.text)
            ).map(Self.standing)
        }
    }

    public func memberHistory(uuid: UUID) async throws -> MemberHistory? {
        let member = SQLValue.text(uuid.uuidString)
        return try await database.readReport { db in
            guard let row = try await db.query("SELECT \(Self.standingColumns) FROM members m WHERE m.uuid = ?", [member]).first else { return nil }
            let periods = try await db.query(
                "SELECT \(PeriodRecord.select("p")), v.name AS vendor_name FROM periods p LEFT JOIN vendors v ON v.id = p.vendor_id WHERE p.member_uuid = ? ORDER BY p.seq",
                [member]
            )
            var names: [UUID: String] = [:]
            for period in periods {
                if let id = try period.optionalText("vendor_id").flatMap(UUID.init(uuidString:)), let name = try period.optionalText("vendor_name") {
                    names[id] = name
                }
            }
            let changes = try await db.query("SELECT kind, changed_at FROM member_changes WHERE member_uuid = ? ORDER BY version", [member])
            let apple = try await db.query(
                "SELECT issued_at, (SELECT COUNT(*) FROM wallet_registrations r WHERE r.member_uuid = ?) AS devices FROM wallet_passes WHERE member_uuid = ?",
                [member, member]
            ).first
            let google = try await db.query("SELECT issued_at FROM google_wallet_objects WHERE member_uuid = ?", [member]).first
            return MemberHistory(
                standing: try Self.standing(row),
                periods: try periods.map { try PeriodRecord.period($0) },
                vendorNames: names,
                changes: try changes.map { (try $0.text("kind"), try $0.int("changed_at")) },
                applePassIssuedAt: try apple?.int("issued_at"),
                appleDevices: Int(try apple?.int("devices") ?? 0),
                googleObjectIssuedAt: try google?.int("issued_at"),
                scans: []
            )
        }
    }

    public func audit(from: Int64, until: Int64, limit: Int) async throws -> [AuditEntry] {
        try await database.readReport { db in
            try await db.query(
                "SELECT \(AuditRecord.columns.joined(separator: ", ")) FROM audit_log WHERE at >= ? AND at < ? ORDER BY seq DESC LIMIT ?",
                [.int(from), .int(until), .int(Int64(limit))]
            ).map(AuditRecord.entry)
        }
    }

    public func saveConsoleLink(_ link: ConsoleGrant, audit: AuditEntry) async throws {
        try await database.writeBatch([
            SQLStatement.insert(
                into: "console_links",
                columns: ["code_hash", "actor", "actor_credential_id", "created_at", "expires_at"],
                [
                    .text(link.hash), .text(link.actor), link.actorCredentialID.map { .text($0.uuidString) } ?? .null, .int(link.createdAt),
                    .int(link.expiresAt),
                ]
            ),
            AuditRecord.insert(audit),
        ])
    }

    public func openConsoleSession(
        linkHash: String,
        sessionHash: String,
        address: String,
        now: Int64,
        expiresAt: Int64
    ) async throws
        -> ConsoleGrant?
    {
        try await database.write { db in
            // Used up in the statement that reads it: of two tabs opening one link, one signs in.
            guard
                let link = try await db.query(
                    """
                    UPDATE console_links SET used_at = ? WHERE code_hash = ? AND used_at IS NULL AND expires_at > ?
                    RETURNING code_hash, actor, actor_credential_id, created_at, expires_at
                    """,
                    [.int(now), .text(linkHash), .int(now)]
                ).first.map(Self.grant)
            else { return nil }
            let session = ConsoleGrant(
                hash: sessionHash,
                actor: link.actor,
                actorCredentialID: link.actorCredentialID,
                createdAt: now,
                expiresAt: expiresAt
            )
            let address = String(address.prefix(100))
            for statement in [
                SQLStatement.insert(
                    into: "console_sessions",
                    columns: ["id_hash", "actor", "actor_credential_id", "address", "created_at", "expires_at"],
                    [
                        .text(session.hash), .text(session.actor), session.actorCredentialID.map { .text($0.uuidString) } ?? .null,
                        .text(address), .int(now), .int(expiresAt),
                    ]
                ),
                AuditRecord.insert(
                    AuditEntry(
                        at: now,
                        actor: session.actor,
                        actorCredentialID: session.actorCredentialID,
                        address: address,
                        action: "console.sign_in",
                        target: "",
                        detail: "signed in to the console with a one-time link"
                    )
                ),
            ] {
                try await db.execute(statement.sql, statement.binds)
            }
            return session
        }
    }

    public func consoleSession(hash: String, now: Int64) async throws -> ConsoleGrant? {
        try await database.read { db in
            try await db.query(
                """
                SELECT s.id_hash AS code_hash, s.actor, s.actor_credential_id, s.created_at, s.expires_at FROM console_sessions s
                LEFT JOIN credentials c ON c.id = s.actor_credential_id
                WHERE s.id_hash = ? AND s.ended_at IS NULL AND s.expires_at > ?
                    AND (s.actor_credential_id IS NULL OR (c.revoked_at IS NULL AND (c.expires_at IS NULL OR c.expires_at > ?)))
                """,
                [.text(hash), .int(now), .int(now)]
            ).first.map(Self.grant)
        }
    }

    public func endConsoleSession(hash: String, now: Int64, address: String) async throws {
        try await database.write { db in
            guard
                let ended = try await db.query(
                    "UPDATE console_sessions SET ended_at = ? WHERE id_hash = ? AND ended_at IS NULL RETURNING actor, actor_credential_id",
                    [.int(now), .text(hash)]
                ).first
            else { return }
            let entry = AuditEntry(
                at: now,
                actor: try ended.text("actor"),
                actorCredentialID: try ended.optionalText("actor_credential_id").flatMap(UUID.init(uuidString:)),
                address: String(address.prefix(100)),
                action: "console.sign_out",
                target: "",
                detail: "signed out of the console"
            )
            let insert = AuditRecord.insert(entry)
            try await db.execute(insert.sql, insert.binds)
        }
    }

    private static func grant(_ row: SQLRow) throws -> ConsoleGrant {
        ConsoleGrant(
            hash: try row.text("code_hash"),
            actor: try row.text("actor"),
            actorCredentialID: try row.optionalText("actor_credential_id").flatMap(UUID.init(uuidString:)),
            createdAt: try row.int("created_at"),
            expiresAt: try row.int("expires_at")
        )
    }

    /// Moves the changes sales, cancellations and reminders appended into their days' summary rows, at most
    /// ``ConsoleSummaries/foldBatch`` of each kind; returns how many it moved. Figures are exact before and after: this keeps what each reader sums small. Any number of
    /// instances may fold at once: each change is taken by one of them.
    public func foldConsoleSummaries() async throws -> Int {
        try await database.write { db in
            let sales = try await db.query(ConsoleSummaries.takeSalesChanges, [])
            let coverage = try await db.query(ConsoleSummaries.takeCoverageChanges, [])
            let figures = try await db.query(SubscriptionSummaries.takeChanges, [])
            let shops = try await db.query(ShopAccountRows.takeChanges, [])
            for statement in try ConsoleSummaries.foldStatements(sales: sales, coverage: coverage) + SubscriptionSummaries.foldStatements(figures)
                + ShopAccountRows.foldStatements(shops)
            {
                try await db.execute(statement.sql, statement.binds)
            }
            return sales.count + coverage.count + figures.count + shops.count
        }
    }

    /// Computes every console summary again from the ledger's rows (after loading rows in bulk), in one
    /// transaction; answers what each summary's statements took, in the order each summary was first written.
    @discardableResult
    public func rebuildConsoleSummaries() async throws -> [SummaryRebuildTime] {
        let clock = ContinuousClock()
        return try await database.write { db in
            var times: [SummaryRebuildTime] = []
            for statement in ConsoleSummaries.rebuildStatements(database.dialect) + SubscriptionSummaries.rebuildStatements(database.dialect) {
                let took = try await clock.measure { try await db.execute(statement) }
                let summary = SummaryRebuildTime.summary(writtenBy: statement)
                if let index = times.firstIndex(where: { $0.summary == summary }) {
                    times[index].duration += took
                } else {
                    times.append(SummaryRebuildTime(summary: summary, duration: took))
                }
            }
            return times
        }
    }
}
