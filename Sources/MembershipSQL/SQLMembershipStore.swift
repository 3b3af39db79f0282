public import Foundation
public import Membership
import PeezBasics

/// The ledger on any ``SQLDatabase``: the SQLite and PostgreSQL stores are this type over their drivers,
/// so both run the same statements and the same conformance tests.
///
/// Concurrency is optimistic. Every change to what a member's card shows (a sale, a cancellation, a new name)
/// takes the member's next version in `member_changes`. A sale's use case reads the ledger's head (with the
/// claim on its idempotency key, one round trip), works the sale out holding no lock, then commits it in one
/// batch that records version + 1; if another writer recorded that version first, the batch fails on its key,
/// nothing is written, and the caller works the sale out again on fresh data.
public struct SQLMembershipStore: MembershipStore {
    public let database: any SQLDatabase
    /// Cards in memory, where the database announces every committed change (see ``MemberChangeFeed``).
    let cardCache: CardCache?

    /// Opens the store on `database`, applying any migrations it has not seen.
    public init(database: any SQLDatabase, now: Int64, cardCacheCapacity: Int = 10_000) async throws {
        self.init(opening: database, cardCacheCapacity: cardCacheCapacity)
        try await migrate(now: now)
    }

    /// The store on `database`, touching nothing yet: call ``migrate(now:)`` before the first use (a service
    /// does so once its database pool runs).
    public init(opening database: any SQLDatabase, cardCacheCapacity: Int = 10_000) {
        self.database = database
        if let feed = database.memberChanges {
            let cache = CardCache(capacity: cardCacheCapacity)
            feed.subscribe { cache.apply($0) }
            cardCache = cache
        } else {
            cardCache = nil
        }
    }

    /// Applies the migrations the database has not seen (instances starting together take turns).
    public func migrate(now: Int64) async throws {
        try await Migrations.apply(to: database, now: now)
        try await fillSearchKeys()
    }

    var lock: String { database.dialect.lockRowsClause }

    /// The migrations this code has that the database has not applied yet (all of them on an empty database):
    /// `peez serve` applies them at start; `peez check` reports them without applying any.
    public func pendingMigrations() async throws -> [String] {
        let applied = try await database.read { db in Set(try await db.query("SELECT name FROM schema_migrations", []).map { try $0.text("name") }) }
        return Migrations.all(database.dialect).map(\.name).filter { !applied.contains($0) }
    }

    public func ping() async throws {
        _ = try await database.read { db in try await db.query("SELECT 1 AS one", []) }
    }

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
                    [.text(day)]
                )
                let sequence = try rows[0].int("last_sequence")
                let member = Member(
                    uuid: draft.uuid,
                    membershipID: Member.membershipID(registeredAt: now, sequence: Int(sequence)),
                    name: draft.name,
                    phone: draft.phone,
                    email: draft.email,
                    neighbourhood: draft.neighbourhood,
                    language: draft.language,
                    createdAt: now
                )
                let insert = MemberRecord.insert(member)
                try await db.execute(insert.sql, insert.binds)
                return (member, true)
            }
        } catch let error as SQLError where error.code == .uniqueViolation {
            // The same member created at the same moment by another request (a retry, another instance): it
            // won the race; the same fields make this an idempotent repeat, as if it had come second.
            if let existing = try await member(uuid: draft.uuid), existing.matches(draft) { return (existing, false) }
            throw Self.memberConflict(error.subject)
        }
    }

    public func member(uuid: UUID) async throws -> Member? {
        try await database.read { db in try await Self.member(db, "uuid = ?", [.text(uuid.uuidString)]) }
    }

    public func member(membershipID: String) async throws -> Member? {
        try await database.read { db in try await Self.member(db, "membership_id = ?", [.text(membershipID)]) }
    }

    public func updateMember(uuid: UUID, patch: MemberPatch, now: Int64, audit: AuditEntry? = nil) async throws -> Member {
        do {
            let updated = try await withLedgerRetry {
                try await database.write { db in
                    guard let member = try await Self.member(db, "uuid = ?", [.text(uuid.uuidString)], lock: lock) else {
                        throw MembershipError(.notFound, "No member has uuid \(uuid.lowercasedText).")
                    }
                    let updated = try patch.applied(to: member)
                    // The name is printed on the card: a new name is a new version, so the next read signs a card with it.
                    let renamed = updated.name != member.name
                    let rows = try await db.query(
                        """
                        UPDATE members SET name = ?, phone = ?, email = ?, neighbourhood = ?, language = ?, search_key = ?,
                            ledger_version = ledger_version + ? WHERE uuid = ? RETURNING ledger_version
                        """,
                        [
                            .text(updated.name), .text(updated.phone), .text(updated.email), .text(updated.neighbourhood),
                            .text(updated.language.rawValue), .text(updated.searchKey), .int(renamed ? 1 : 0), .text(uuid.uuidString),
                        ]
                    )
                    if let audit {
                        let insert = AuditRecord.insert(audit)
                        try await db.execute(insert.sql, insert.binds)
                    }
                    if renamed {
                        let version = try rows[0].int("ledger_version")
                        for statement in [
                            Self.recordChange(of: uuid, version: version, kind: "profile", now: now), Self.touchWalletPass(of: uuid, now: now),
                        ] {
                            try await db.execute(statement.sql, statement.binds)
                        }
                    }
                    return updated
                }
            }
            cardCache?.forget(uuid)
            return updated
        } catch let error as SQLError where error.code == .uniqueViolation {
            throw Self.memberConflict(error.subject)
        }
    }

    private static func memberConflict(_ constraint: String) -> MembershipError {
        let field = constraint.contains("phone") ? "phone" : constraint.contains("email") ? "email" : "uuid"
        return MembershipError(.conflict, "Another member already has this \(field).", fields: [field: "is already registered to another member"])
    }

    static func member(_ db: any SQLExecutor, _ condition: String, _ binds: [SQLValue], lock: String = "") async throws -> Member? {
        try await db.query("SELECT \(MemberRecord.select("members")) FROM members WHERE \(condition)\(lock)", binds).first.map {
            try MemberRecord.member($0)
        }
    }

    // MARK: Vendors and credentials

    public func createVendor(id: UUID, name: String, category: String, neighbourhood: String, now: Int64) async throws -> Vendor {
        let vendor = Vendor(
            id: id,
            name: name.trimmingCharacters(in: .whitespacesAndNewlines),
            category: category,
            neighbourhood: neighbourhood,
            createdAt: now
        )
        let insert = VendorRecord.insert(vendor)
        _ = try await database.writeStatement(insert.sql + " ON CONFLICT (id) DO NOTHING", insert.binds)
        guard let stored = try await self.vendor(id: id) else { throw MembershipError(.notFound, "The vendor \(id.lowercasedText) was not stored.") }
        return stored
    }

    public func vendor(id: UUID) async throws -> Vendor? {
        try await database.read { db in
            try await db.query("SELECT \(VendorRecord.columns.joined(separator: ", ")) FROM vendors WHERE id = ?", [.text(id.uuidString)]).first.map(
                VendorRecord.vendor
            )
        }
    }

    public func saveCredential(_ credential: APICredential) async throws {
        try await database.write { db in
            let insert = CredentialRecord.insert(credential)
            try await db.execute(insert.sql + " ON CONFLICT (secret_hash) DO NOTHING", insert.binds)
        }
    }

    public func credential(secretHash: String) async throws -> APICredential? {
        try await database.read { db in
            try await db.query(
                "SELECT \(CredentialRecord.columns.joined(separator: ", ")) FROM credentials WHERE secret_hash = ?",
                [.text(secretHash)]
            )
            .first.map(CredentialRecord.credential)
        }
    }
}
