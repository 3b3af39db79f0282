import ArgumentParser
import Foundation
import MembershipSQLite

extension Peez {
    /// `peez backup`: a consistent copy of the SQLite ledger, taken while the service runs.
    struct Backup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy the SQLite ledger to a new file, consistently, while the service keeps running.",
            discussion: """
                The copy is one moment of the ledger (SQLite's VACUUM INTO), compacted, mode 0600 (it holds \
                members' personal data). No request waits for it. To restore: stop the service, move the ledger \
                and its -wal and -shm files aside, put the copy in the ledger's place, start the service. \
                A PostgreSQL ledger is backed up with PostgreSQL's own tools (pg_dump, or base backups).

                Examples:
                  peez backup --database var/peez.sqlite var/backups/peez-2026-11-24.sqlite
                  # restore, with the service stopped:
                  mv var/peez.sqlite var/peez.sqlite.old
                  rm -f var/peez.sqlite-wal var/peez.sqlite-shm
                  cp var/backups/peez-2026-11-24.sqlite var/peez.sqlite
                """
        )

        @Option(help: "The SQLite ledger to copy.")
        var database: String

        @Argument(help: "The backup file to write; it must not exist yet.")
        var destination: String

        func validate() throws {
            guard FileManager.default.fileExists(atPath: database) else { throw ValidationError("\(database) does not exist") }
            guard !FileManager.default.fileExists(atPath: destination) else {
                throw ValidationError("\(destination) exists already; name a new file")
            }
        }

        func run() async throws {
            let ledger = try await SQLiteDatabase.open(path: database)
            try await ledger.backup(to: destination)
            try await ledger.close()
            let size = (try? FileManager.default.attributesOfItem(atPath: destination)[.size] as? Int) ?? 0
            printNow("backed up \(database) to \(destination) (\(size / 1024) KiB)")
        }
    }
}
