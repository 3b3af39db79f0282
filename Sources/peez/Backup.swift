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

                With no file named, the copy goes to a new file in PEEZ_BACKUP_DIR (the folder peez check reads \
                the last backup's age from): run it daily from a timer.

                Examples:
                  peez backup --database var/peez.sqlite var/backups/peez-2026-11-24.sqlite
                  peez backup --config /etc/peez/peez.env   # into its PEEZ_BACKUP_DIR
                  # restore, with the service stopped:
                  mv var/peez.sqlite var/peez.sqlite.old
                  rm -f var/peez.sqlite-wal var/peez.sqlite-shm
                  cp var/backups/peez-2026-11-24.sqlite var/peez.sqlite
                """
        )

        @OptionGroup var store: StoreOptions

        @Argument(help: "The backup file to write; it must not exist yet (default: a new file in PEEZ_BACKUP_DIR).")
        var destination: String?

        func run() async throws {
            guard try store.effectiveDatabaseURL == nil else {
                throw ValidationError("the ledger is on PostgreSQL: back it up with PostgreSQL's own tools (pg_dump, or base backups)")
            }
            let database = try store.sqlitePath
            guard FileManager.default.fileExists(atPath: database) else { throw ValidationError("\(database) does not exist") }
            let destination = try destination ?? newBackupFile()
            guard !FileManager.default.fileExists(atPath: destination) else {
                throw ValidationError("\(destination) exists already; name a new file")
            }
            let ledger = try await SQLiteDatabase.open(path: database)
            try await ledger.backup(to: destination)
            try await ledger.close()
            let size = (try? FileManager.default.attributesOfItem(atPath: destination)[.size] as? Int) ?? 0
            printNow("backed up \(database) to \(destination) (\(size / 1024) KiB)")
        }

        /// `peez-<UTC time>.sqlite` in PEEZ_BACKUP_DIR, the folder `peez check` looks at.
        private func newBackupFile() throws -> String {
            guard let folder = try store.setting("PEEZ_BACKUP_DIR") else {
                throw ValidationError("name the backup file, or set PEEZ_BACKUP_DIR (the folder peez check looks at for the last backup)")
            }
            let stamp = ISO8601DateFormatter.string(
                from: Date(),
                timeZone: TimeZone(identifier: "UTC")!,
                formatOptions: [.withYear, .withMonth, .withDay, .withTime]
            )
            return (folder as NSString).appendingPathComponent("peez-\(stamp)Z.sqlite")
        }
    }
}
