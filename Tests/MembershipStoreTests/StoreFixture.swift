import Foundation
import Membership
import MembershipPostgres
import MembershipSQL
import MembershipSQLite
import TestSupport
import Testing

/// The real databases the conformance suite runs against.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, postgres

    var testDescription: String { rawValue }

    /// PostgreSQL's admin URL: `make test` starts a throwaway server and exports it.
    static let postgresURL = ProcessInfo.processInfo.environment["PEEZ_TEST_DATABASE_URL"]

    /// SQLite always; PostgreSQL where a server is given, and always in CI (where a missing server must fail).
    static let available: [StoreKind] =
        postgresURL != nil || ProcessInfo.processInfo.environment["CI"] == "true" ? [.sqlite, .postgres] : [.sqlite]

    /// Runs `body` on a store over a brand-new, empty database of this kind, then removes it.
    func withStore(_ body: (SQLMembershipStore) async throws -> Void) async throws {
        try await withDatabase { database in try await body(try await SQLMembershipStore(database: database, now: Sample.migratedAt)) }
    }

    /// Runs `body` on a brand-new, empty database of this kind (no schema yet), then removes it.
    func withDatabase(_ body: (any SQLDatabase) async throws -> Void) async throws {
        switch self {
        case .sqlite:
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let database = try await SQLiteDatabase.open(path: folder.file("ledger.sqlite"))
            do {
                try await body(database)
                try await database.close()
            } catch {
                try? await database.close()
                throw error
            }
        case .postgres:
            try await Self.withPostgresDatabases(1) { try await body($0[0]) }
        }
    }

    /// Runs `body` with `count` stores on one brand-new database of this kind, each running as a serving
    /// instance runs its database (PostgreSQL's pool and listener, SQLite's watch for other processes' changes):
    /// instances behind a load balancer, or a service and `peez admin` on one SQLite file.
    func withInstances(_ count: Int, _ body: ([SQLMembershipStore]) async throws -> Void) async throws {
        switch self {
        case .sqlite:
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            var databases: [SQLiteDatabase] = []
            for _ in 0..<count { databases.append(try await SQLiteDatabase.open(path: folder.file("ledger.sqlite"))) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for database in databases { group.addTask { await database.run() } }
                defer { group.cancelAll() }
                var stores: [SQLMembershipStore] = []
                for database in databases { stores.append(try await SQLMembershipStore(database: database, now: Sample.migratedAt)) }
                try await body(stores)
            }
        case .postgres:
            try await Self.withPostgresInstances(count, body)
        }
    }

    /// Runs `body` with `count` stores on one brand-new PostgreSQL database, as that many service instances
    /// behind a load balancer would have, then removes it.
    static func withPostgresInstances(_ count: Int, _ body: ([SQLMembershipStore]) async throws -> Void) async throws {
        try await withPostgresDatabases(count) { databases in
            var stores: [SQLMembershipStore] = []
            for database in databases { stores.append(try await SQLMembershipStore(database: database, now: Sample.migratedAt)) }
            try await body(stores)
        }
    }

    /// Runs `body` with `count` running connections to one brand-new PostgreSQL database, then removes it.
    static func withPostgresDatabases(_ count: Int, _ body: ([PostgresDatabase]) async throws -> Void) async throws {
        let adminURL = try #require(postgresURL, "CI must run the PostgreSQL tests: set PEEZ_TEST_DATABASE_URL (make test does)")
        let name = "peez_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased()
        try await psql(adminURL, "CREATE DATABASE \(name)")
        let url = adminURL.replacingOccurrences(of: "/postgres", with: "/\(name)")
        do {
            // A statement waits up to a minute for one of the four connections: on a loaded machine the shared
            // server can stall for seconds (a DROP DATABASE's checkpoint syncing every test's files), and the
            // tests that run more writers than connections would otherwise fail on the wait, not on what they prove.
            let databases = try (0..<count).map { _ in try PostgresDatabase(url: url, connections: 4, connectionWait: .seconds(60)) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for database in databases { group.addTask { await database.run() } }
                do {
                    try await body(databases)
                } catch {
                    group.cancelAll()
                    throw error
                }
                group.cancelAll()
            }
        } catch {
            try? await psql(adminURL, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
            throw error
        }
        try await psql(adminURL, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    static func psql(_ url: String, _ statement: String) async throws {
        let result = try await ProcessRunner.run(["psql", url, "-v", "ON_ERROR_STOP=1", "-q", "-c", statement])
        guard result.status == 0 else { throw StoreFixtureError(message: result.standardError) }
    }
}

struct StoreFixtureError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// Builders for test data.
enum Sample {
    /// When the test stores record their migrations.
    static let migratedAt: Int64 = 1_767_225_600

    static func draft(_ index: Int = 1, uuid: UUID = UUID()) -> MemberDraft {
        MemberDraft(
            uuid: uuid,
            name: "Ahmed Mohamed \(index)",
            phone: String(format: "+21355%07d", index),
            email: "member\(index)@example.dz",
            neighbourhood: "gambetta"
        )
    }

    /// 2026-01-31 10:00 in Algiers.
    static let january31: Int64 = 1_769_850_000

    static func key(_ name: String = UUID().uuidString, hash: String = "h1") -> IdempotencyKey {
        IdempotencyKey(scope: "vendor-1", key: name, requestHash: hash)
    }

    static func vendorAndMember(in store: SQLMembershipStore) async throws -> (Vendor, Member) {
        let vendor = try await store.createVendor(name: "A", category: "boucherie", neighbourhood: "usto", now: 1_000)
        return (vendor, try await store.createMember(draft(), now: 1_000).member)
    }
}
