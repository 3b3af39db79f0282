import CardCrypto
import Foundation
import MembershipPostgres
import MembershipSQLite
import TestSupport
import Testing

@testable import MembershipSQL

/// A migration that has landed is never edited: a ledger that ran it would never run the new text. Each
/// migration's SQL, on each store, is held to the digest recorded when it landed
/// (`Fixtures/migrations/landed.json`); `PEEZ_UPDATE_MIGRATIONS=1` records new migrations and never rewrites one
/// already recorded.
@Suite("Landed migrations")
struct LandedMigrationTests {
    static let file = repositoryRoot.appendingPathComponent("Fixtures/migrations/landed.json")
    static let dialects = ["sqlite": SQLiteDatabase.sqlDialect, "postgres": PostgresDatabase.sqlDialect]

    /// Each store's migrations by name, as the SHA-256 of their statements (each followed by a blank line).
    static func digests() -> [String: [String: String]] {
        dialects.mapValues { dialect in
            Dictionary(
                uniqueKeysWithValues: Migrations.all(dialect).map { migration in
                    let text = migration.statements.map { $0 + "\n\n" }.joined()
                    return (migration.name, SHA256.hash(Array(text.utf8)).map { String(format: "%02x", $0) }.joined())
                }
            )
        }
    }

    @Test func noLandedMigrationWasEdited() throws {
        let current = Self.digests()
        var recorded = try JSONDecoder().decode([String: [String: String]].self, from: Data(contentsOf: Self.file))
        for (store, migrations) in current {
            for (name, digest) in migrations.sorted(by: { $0.key < $1.key }) {
                guard let landed = recorded[store]?[name] else {
                    if ProcessInfo.processInfo.environment["PEEZ_UPDATE_MIGRATIONS"] == "1" { recorded[store, default: [:]][name] = digest }
                    continue
                }
                #expect(landed == digest, "migration \(name) changed on \(store): a landed migration is never edited, add a new one")
            }
            #expect(Set(recorded[store, default: [:]].keys).isSubset(of: migrations.keys), "a landed migration was removed on \(store)")
        }
        if ProcessInfo.processInfo.environment["PEEZ_UPDATE_MIGRATIONS"] == "1" {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try (encoder.encode(recorded) + Data("\n".utf8)).write(to: Self.file)
        }
        #expect(recorded.mapValues { Set($0.keys) } == current.mapValues { Set($0.keys) }, "PEEZ_UPDATE_MIGRATIONS=1 records a new migration")
    }
}
