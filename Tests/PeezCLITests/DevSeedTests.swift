import Foundation
import TestSupport
import Testing

/// `peez dev seed` says what it seeded: the scans as well as the members, up to the last one, and what writing
/// the rows and rebuilding each of the console's summaries took.
@Suite("Seeding a demo ledger")
struct DevSeedTests {
    @Test func theSeedSaysEveryScanItStoredAndStoresThemAll() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let ledger = folder.file("ledger.sqlite")
        let seeded = try await PeezCommand.run(["dev", "seed", "--members", "20", "--shops", "3", "--scans", "300", "--database", ledger])
        #expect(seeded.status == 0, "\(seeded.standardError)")
        let lines = seeded.standardError.split(separator: "\n")
        #expect(lines.contains("seeded 300 of 300 scans"), "\(seeded.standardError)")
        #expect(lines.contains { $0.hasPrefix("members and periods written in ") && $0.contains("; summaries rebuilt in ") })
        #expect(lines.contains { $0.hasPrefix("  subscription_days ") && $0.hasSuffix(" s") }, "\(seeded.standardError)")
        #expect(lines.last?.hasPrefix("seeded 20 members and 300 scans in ") == true, "\(seeded.standardError)")
        let count = "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM counter_scans').fetchone()[0])"
        let counted = try await ProcessRunner.run(["/usr/bin/python3", "-c", count, ledger])
        #expect(counted.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "300", "\(counted.standardError)")
    }
}
