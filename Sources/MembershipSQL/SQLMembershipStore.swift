public import Foundation
public import Membership

/// The ledger on any ``SQLDatabase``: the SQLite and PostgreSQL stores are this type over their drivers,
/// so both run the same statements and the same conformance tests.
public struct SQLMembershipStore: MembershipStore {
    public let database: any SQLDatabase

    /// Opens the store on `database`, applying any migrations it has not seen.
    public init(database: any SQLDatabase, now: Int64 = Int64(Date().timeIntervalSince1970)) async throws {
        self.database = database
        try await Migrations.apply(to: database, now: now)
    }

    private var lock: String { database.dialect.lockRowsClause }

    // MARK: Members

    public func createMember(_ draft: MemberDraft, now: Int64) async throws -> (member: Member, created: Bool) {
        do {
            return try await database.write { db in
                if let existing = try await Self.member(db, "uuid = ?", [.text(draft.uuid.uuidString)]) {
                    guard existing.matches(draft) else {
                        throw MembershipError(.conflict, "A member with uuid \(draft.uuid) already exists with other fields.")
                    }
                    return (existing, false)
                }
                let day = AlgiersCalendar.dayStamp(now)
                let rows = try await db.query(
                    "INSERT INTO membership_sequences (day, last_sequence) VALUES (?, 1) ON CONFLICT (day) DO UPDATE SET last_sequence = membership_sequences.last_sequence + 1 RETURNING last_sequence",
                    [.text(day)])
                let sequence = try rows[0].int("last_sequence")
                let member = Member(uuid: draft.uuid, membershipID: Member.membershipID(registeredAt: now, sequence: Int(sequence)),
                                    name: draft.name, phone: draft.phone, email: draft.email, neighbourhood: draft.neighbourhood,
                                    language: draft.language, createdAt: now)
                try await db.execute(
                    "INSERT INTO members (uuid, membership_id, name, phone, email, neighbourhood, language, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [.text(member.uuid.uuidString), .text(member.membershipID), .text(member.name), .text(member.phone),
                     .text(member.email), .text(member.neighbourhood), .text(member.language.rawValue), .int(now)])
                return (member, true)
            }
        } catch let SQLError.uniqueViolation(what) {
            throw Self.memberConflict(what)
        }
    }

    public func member(uuid: UUID) async throws -> Member? {
        try await database.read { db in try await Self.member(db, "uuid = ?", [.text(uuid.uuidString)]) }
    }

    public func member(membershipID: String) async throws -> Member? {
        try await database.read { db in try await Self.member(db, "membership_id = ?", [.text(membershipID)]) }
    }

    public func updateMember(uuid: UUID, patch: MemberPatch) async throws -> Member {
        do {
            return try await database.write { db in
                guard let member = try await Self.member(db, "uuid = ?", [.text(uuid.uuidString)], lock: lock) else {
                    throw MembershipError(.notFound, "No member has uuid \(uuid).")
                }
                let updated = try patch.applied(to: member)
                try await db.execute(
                    "UPDATE members SET name = ?, phone = ?, email = ?, neighbourhood = ?, language = ? WHERE uuid = ?",
                    [.text(updated.name), .text(updated.phone), .text(updated.email), .text(updated.neighbourhood),
                     .text(updated.language.rawValue), .text(uuid.uuidString)])
                if updated.name != member.name {
                    // The name is printed on the card: the next read signs one with the new name.
                    try await db.execute("DELETE FROM cards WHERE member_uuid = ?", [.text(uuid.uuidString)])
                }
                return updated
            }
        } catch let SQLError.uniqueViolation(what) {
            throw Self.memberConflict(what)
        }
    }

    private static func memberConflict(_ constraint: String) -> MembershipError {
        let field = constraint.contains("phone") ? "phone" : constraint.contains("email") ? "email" : "uuid"
        return MembershipError(.conflict, "Another member already has this \(field).", fields: [field: "is already registered to another member"])
    }

    static func member(_ db: any SQLExecutor, _ condition: String, _ binds: [SQLValue], lock: String = "") async throws -> Member? {
        let rows = try await db.query(
            "SELECT uuid, membership_id, name, phone, email, neighbourhood, language, created_at FROM members WHERE \(condition)\(lock)", binds)
        return try rows.first.map { row in
            Member(uuid: UUID(uuidString: try row.text("uuid"))!, membershipID: try row.text("membership_id"), name: try row.text("name"),
                   phone: try row.text("phone"), email: try row.text("email"), neighbourhood: try row.text("neighbourhood"),
                   language: Member.Language(rawValue: try row.text("language")) ?? .fr, createdAt: try row.int("created_at"))
        }
    }

    // MARK: Vendors and credentials

    public func createVendor(name: String, category: String, neighbourhood: String, now: Int64) async throws -> Vendor {
        let vendor = Vendor(id: UUID(), name: name.trimmingCharacters(in: .whitespacesAndNewlines), category: category, neighbourhood: neighbourhood, createdAt: now)
        try await database.write { db in
            try await db.execute("INSERT INTO vendors (id, name, category, neighbourhood, created_at) VALUES (?, ?, ?, ?, ?)",
                                 [.text(vendor.id.uuidString), .text(vendor.name), .text(category), .text(neighbourhood), .int(now)])
        }
        return vendor
    }

    public func vendor(id: UUID) async throws -> Vendor? {
        try await database.read { db in
            let rows = try await db.query("SELECT id, name, category, neighbourhood, created_at FROM vendors WHERE id = ?", [.text(id.uuidString)])
            return try rows.first.map { row in
                Vendor(id: id, name: try row.text("name"), category: try row.text("category"),
                       neighbourhood: try row.text("neighbourhood"), createdAt: try row.int("created_at"))
            }
        }
    }

    public func saveCredential(_ credential: APICredential) async throws {
        try await database.write { db in
            try await db.execute(
                "INSERT INTO credentials (id, role, vendor_id, secret_hash, label, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                [.text(credential.id.uuidString), .text(credential.role.rawValue), credential.vendorID.map { .text($0.uuidString) } ?? .null,
                 .text(credential.secretHash), .text(credential.label), .int(credential.createdAt)])
        }
    }

    public func credential(secretHash: String) async throws -> APICredential? {
        try await database.read { db in
            let rows = try await db.query("SELECT id, role, vendor_id, secret_hash, label, created_at FROM credentials WHERE secret_hash = ?", [.text(secretHash)])
            return try rows.first.flatMap { row in
                guard let role = Role(rawValue: try row.text("role")) else { return nil }
                return APICredential(id: UUID(uuidString: try row.text("id"))!, role: role,
                                     vendorID: try row.optionalText("vendor_id").flatMap(UUID.init(uuidString:)),
                                     secretHash: secretHash, label: try row.text("label"), createdAt: try row.int("created_at"))
            }
        }
    }

    // MARK: Periods

    static let periodColumns = "id, member_uuid, months, amount_dzd, source, vendor_id, purchased_at, starts_at, ends_at, cancelled_at"

    static func period(_ row: SQLRow) throws -> SubscriptionPeriod {
        SubscriptionPeriod(
            id: UUID(uuidString: try row.text("id"))!, memberUUID: UUID(uuidString: try row.text("member_uuid"))!,
            months: Int(try row.int("months")), amountDZD: Int(try row.int("amount_dzd")),
            source: SubscriptionPeriod.Source(rawValue: try row.text("source")) ?? .vendor,
            vendorID: try row.optionalText("vendor_id").flatMap(UUID.init(uuidString:)),
            purchasedAt: try row.int("purchased_at"), startsAt: try row.int("starts_at"), endsAt: try row.int("ends_at"),
            cancelledAt: try row.optionalInt("cancelled_at"))
    }

    static func periods(_ db: any SQLExecutor, memberUUID: UUID) async throws -> [SubscriptionPeriod] {
        try await db.query("SELECT \(periodColumns) FROM periods WHERE member_uuid = ? ORDER BY seq", [.text(memberUUID.uuidString)]).map(period)
    }

    public func periods(memberUUID: UUID) async throws -> [SubscriptionPeriod] {
        try await database.read { db in try await Self.periods(db, memberUUID: memberUUID) }
    }

    public func period(id: UUID) async throws -> SubscriptionPeriod? {
        try await database.read { db in
            try await db.query("SELECT \(Self.periodColumns) FROM periods WHERE id = ?", [.text(id.uuidString)]).first.map(Self.period)
        }
    }

    public func activations(vendorID: UUID?, limit: Int) async throws -> [SubscriptionPeriod] {
        try await database.read { db in
            let filter = vendorID == nil ? "vendor_id IS NOT NULL" : "vendor_id = ?"
            let binds: [SQLValue] = (vendorID.map { [.text($0.uuidString)] } ?? []) + [.int(Int64(limit))]
            return try await db.query("SELECT \(Self.periodColumns) FROM periods WHERE \(filter) ORDER BY purchased_at DESC, seq DESC LIMIT ?", binds).map(Self.period)
        }
    }

    /// Writes the laid-out dates of every period whose dates moved.
    static func saveLayout(_ db: any SQLExecutor, old: [SubscriptionPeriod], new: [SubscriptionPeriod]) async throws {
        for (before, after) in zip(old, new) where before.startsAt != after.startsAt || before.endsAt != after.endsAt {
            try await db.execute("UPDATE periods SET starts_at = ?, ends_at = ? WHERE id = ?",
                                 [.int(after.startsAt), .int(after.endsAt), .text(after.id.uuidString)])
        }
    }

    // MARK: Activation, idempotency, cancellation

    public func beginIdempotentRequest(_ key: IdempotencyKey, now: Int64, abandonAfter: Int64) async throws -> IdempotencyDecision {
        // The common case, a new key, is one statement; an existing key is looked at in a transaction.
        let inserted = try await database.writeStatement(
            "INSERT INTO idempotency_keys (scope, key, request_hash, state, created_at) VALUES (?, ?, ?, 'in_flight', ?) ON CONFLICT (scope, key) DO NOTHING RETURNING state",
            [.text(key.scope), .text(key.key), .text(key.requestHash), .int(now)])
        if !inserted.isEmpty { return .proceed }
        do {
            return try await beginIdempotentRequestOnce(key, now: now, abandonAfter: abandonAfter)
        } catch SQLError.uniqueViolation {
            // Two first attempts raced (a row that does not exist yet cannot be locked): the other one won and
            // is in flight.
            return .inFlight
        }
    }

    private func beginIdempotentRequestOnce(_ key: IdempotencyKey, now: Int64, abandonAfter: Int64) async throws -> IdempotencyDecision {
        try await database.write { db in
            let rows = try await db.query(
                "SELECT request_hash, state, response_status, response_body, created_at FROM idempotency_keys WHERE scope = ? AND key = ?\(lock)",
                [.text(key.scope), .text(key.key)])
            guard let row = rows.first else {
                try await db.execute("INSERT INTO idempotency_keys (scope, key, request_hash, state, created_at) VALUES (?, ?, ?, 'in_flight', ?)",
                                     [.text(key.scope), .text(key.key), .text(key.requestHash), .int(now)])
                return .proceed
            }
            guard try row.text("request_hash") == key.requestHash else { return .mismatch }
            if try row.text("state") == "done" {
                return .replay(StoredResponse(status: Int(try row.int("response_status")), body: try row.blob("response_body")))
            }
            guard now - (try row.int("created_at")) > abandonAfter else { return .inFlight }
            try await db.execute("UPDATE idempotency_keys SET created_at = ? WHERE scope = ? AND key = ?", [.int(now), .text(key.scope), .text(key.key)])
            return .proceed
        }
    }

    public func abandonIdempotentRequest(_ key: IdempotencyKey) async throws {
        try await database.write { db in
            try await db.execute("DELETE FROM idempotency_keys WHERE scope = ? AND key = ? AND state = 'in_flight'", [.text(key.scope), .text(key.key)])
        }
    }

    public func activate(_ activation: Activation, key: IdempotencyKey, now: Int64, mintCard: CardMinting,
                         response: @Sendable (ActivationResult) throws -> StoredResponse) async throws -> ActivationResult {
        try Pricing.validate(months: activation.months, amountDZD: activation.amountDZD)
        // Where all writes take turns, sign and render the card before the write, for the coverage the sale
        // will most likely give; inside the transaction it is used only if the locked rows give that coverage.
        let speculation = !database.dialect.serializesAllWrites ? nil : try await database.read { db -> (Member, Int64)? in
            guard let member = try await Self.member(db, "uuid = ?", [.text(activation.memberUUID.uuidString)]) else { return nil }
            let existing = try await Self.periods(db, memberUUID: member.uuid)
            let draft = SubscriptionPeriod(id: UUID(), memberUUID: member.uuid, months: activation.months, amountDZD: activation.amountDZD,
                                           source: .vendor, vendorID: activation.vendorID, purchasedAt: now, startsAt: now, endsAt: now)
            return (member, CoverageSchedule.coverageEnd(CoverageSchedule.laidOut(existing + [draft]))!)
        }
        let speculativeCard = try speculation.map { member, coverageEnd in
            (member: member, coverageEnd: coverageEnd, card: try mintCard(member, coverageEnd, now))
        }
        return try await database.write { db in
            // Lock the member so concurrent activations of one member take turns and stack.
            guard let member = try await Self.member(db, "uuid = ?", [.text(activation.memberUUID.uuidString)], lock: lock) else {
                throw MembershipError(.notFound, "No member has uuid \(activation.memberUUID).")
            }
            let existing = try await Self.periods(db, memberUUID: member.uuid)
            let draft = SubscriptionPeriod(id: UUID(), memberUUID: member.uuid, months: activation.months, amountDZD: activation.amountDZD,
                                           source: .vendor, vendorID: activation.vendorID, purchasedAt: now, startsAt: now, endsAt: now)
            let laidOut = CoverageSchedule.laidOut(existing + [draft])
            let period = laidOut.last!
            try await Self.saveLayout(db, old: existing, new: Array(laidOut.dropLast()))
            try await db.execute(
                "INSERT INTO periods (id, member_uuid, seq, months, amount_dzd, source, vendor_id, purchased_at, starts_at, ends_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [.text(period.id.uuidString), .text(member.uuid.uuidString), .int(Int64(existing.count + 1)), .int(Int64(period.months)),
                 .int(Int64(period.amountDZD)), .text(period.source.rawValue), .text(activation.vendorID.uuidString),
                 .int(now), .int(period.startsAt), .int(period.endsAt)])
            let coverageEnd = CoverageSchedule.coverageEnd(laidOut)!
            let card: StoredCard
            if let speculativeCard, speculativeCard.member == member, speculativeCard.coverageEnd == coverageEnd {
                card = speculativeCard.card
            } else {
                card = try mintCard(member, coverageEnd, now)  // a concurrent sale moved the coverage
            }
            try await Self.saveCard(db, card)
            let result = ActivationResult(member: member, period: period, coverageEnd: coverageEnd, card: card)
            let stored = try response(result)
            try await db.execute(
                "UPDATE idempotency_keys SET state = 'done', response_status = ?, response_body = ? WHERE scope = ? AND key = ?",
                [.int(Int64(stored.status)), .blob(stored.body), .text(key.scope), .text(key.key)])
            return result
        }
    }

    public func cancelPeriod(id: UUID, now: Int64) async throws -> CancellationResult {
        try await database.write { db in
            guard let target = try await db.query("SELECT \(Self.periodColumns) FROM periods WHERE id = ?", [.text(id.uuidString)]).first.map(Self.period) else {
                throw MembershipError(.notFound, "No subscription period has id \(id).")
            }
            guard let member = try await Self.member(db, "uuid = ?", [.text(target.memberUUID.uuidString)], lock: lock) else {
                throw MembershipError(.notFound, "The period's member no longer exists.")
            }
            let existing = try await Self.periods(db, memberUUID: member.uuid)
            guard let index = existing.firstIndex(where: { $0.id == id }), existing[index].cancelledAt == nil else {
                throw MembershipError(.conflict, "The period \(id) is already cancelled.")
            }
            var changed = existing
            changed[index].cancelledAt = now
            let laidOut = CoverageSchedule.laidOut(changed)
            try await db.execute("UPDATE periods SET cancelled_at = ? WHERE id = ?", [.int(now), .text(id.uuidString)])
            try await Self.saveLayout(db, old: existing, new: laidOut)
            // Every card issued before now shows coverage that no longer exists.
            if let card = try await Self.card(db, memberUUID: member.uuid) {
                try await db.execute("INSERT INTO revocations (token_id, created_at) VALUES (?, ?)", [.text(card.tokenID), .int(now)])
            }
            try await db.execute("INSERT INTO revocations (membership_id, revoked_before, created_at) VALUES (?, ?, ?)",
                                 [.text(member.membershipID), .int(now), .int(now)])
            try await db.execute("DELETE FROM cards WHERE member_uuid = ?", [.text(member.uuid.uuidString)])
            return CancellationResult(period: laidOut[index], periods: laidOut, coverageEnd: CoverageSchedule.coverageEnd(laidOut), revokedBefore: now)
        }
    }

    // MARK: Cards and revocations

    static func card(_ db: any SQLExecutor, memberUUID: UUID) async throws -> StoredCard? {
        try await db.query("SELECT token_id, token, png, issued_at, expires_at, coverage_end FROM cards WHERE member_uuid = ?",
                           [.text(memberUUID.uuidString)]).first.map { row in
            StoredCard(memberUUID: memberUUID, tokenID: try row.text("token_id"), token: try row.text("token"), png: try row.blob("png"),
                       issuedAt: try row.int("issued_at"), expiresAt: try row.int("expires_at"), coverageEnd: try row.optionalInt("coverage_end"))
        }
    }

    static func saveCard(_ db: any SQLExecutor, _ card: StoredCard) async throws {
        try await db.execute(
            """
            INSERT INTO cards (member_uuid, token_id, token, png, issued_at, expires_at, coverage_end) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (member_uuid) DO UPDATE SET token_id = excluded.token_id, token = excluded.token, png = excluded.png,
                issued_at = excluded.issued_at, expires_at = excluded.expires_at, coverage_end = excluded.coverage_end
            """,
            [.text(card.memberUUID.uuidString), .text(card.tokenID), .text(card.token), .blob(card.png), .int(card.issuedAt),
             .int(card.expiresAt), card.coverageEnd.map(SQLValue.int) ?? .null])
    }

    public func card(memberUUID: UUID) async throws -> StoredCard? {
        try await database.read { db in try await Self.card(db, memberUUID: memberUUID) }
    }

    public func saveCard(_ card: StoredCard) async throws {
        try await database.write { db in try await Self.saveCard(db, card) }
    }

    public func revocations() async throws -> RevocationSnapshot {
        try await database.read { db in
            var tokenIDs: [String] = []
            var members: [String: Int64] = [:]
            var version: Int64 = 0
            for row in try await db.query("SELECT seq, token_id, membership_id, revoked_before FROM revocations ORDER BY seq", []) {
                version = max(version, try row.int("seq"))
                if let tokenID = try row.optionalText("token_id") { tokenIDs.append(tokenID) }
                if let member = try row.optionalText("membership_id"), let before = try row.optionalInt("revoked_before") {
                    members[member] = max(members[member] ?? before, before)
                }
            }
            return RevocationSnapshot(tokenIDs: tokenIDs, members: members, version: version)
        }
    }
}
