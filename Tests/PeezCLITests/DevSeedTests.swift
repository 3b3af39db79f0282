import Foundation
import TestSupport
import Testing

/// `peez dev seed` says what it seeded: the scans as well as the members, up to the last one.
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
        #expect(lines.last?.hasPrefix("seeded 20 members and 300 scans in ") == true, "\(seeded.standardError)")
        let count = "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM counter_scans').fetchone()[0])"
        let counted = try await ProcessRunner.run(["/usr/bin/python3", "-c", count, ledger])
        #expect(counted.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "300", "\(counted.standardError)")
    }
}
