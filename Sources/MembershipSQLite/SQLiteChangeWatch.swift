import Foundation
import MembershipSQL

/// Hears the ledger changes committed to an SQLite file by any connection of any process (the service's own
/// writer, `peez admin` or `peez dev seed` on the same file), and announces each on a ``MemberChangeFeed``.
///
/// SQLite has no notifications across processes, but every change to what a member's card shows takes the
/// member's next version in `member_changes`, an append-only table whose rowids grow with each commit (one
/// writer at a time holds the file; a rolled-back row's rowid is given to the next one, never seen by a reader).
/// So the watch reads the rows past the last rowid it has seen, every ``interval``: a change committed by another
/// process is heard within an interval of its commit, as PostgreSQL's NOTIFY is within a notification's trip. The
/// service's own writes are forgotten at once by the store that made them; the watch hears them again, harmlessly.
struct SQLiteChangeWatch {
    /// The longest a change committed by another process goes unheard.
    static let interval: Duration = .milliseconds(10)
    /// The most rows read at a time: a bulk load read in chunks, without waiting between them.
    static let chunk = 1_000

    let feed: MemberChangeFeed
    let read: @Sendable (String, [SQLValue]) async throws -> [SQLRow]

    /// Watches until the task is cancelled; announces `listening` once it has its starting point, `interrupted`
    /// when a read fails (until one succeeds again) and when it stops.
    func run(every interval: Duration = Self.interval) async {
        var last: Int64?
        while !Task.isCancelled {
            var caughtUp = true
            do {
                if let seen = last {
                    let rows = try await read(
                        "SELECT rowid AS seq, member_uuid FROM member_changes WHERE rowid > ? ORDER BY rowid LIMIT \(Self.chunk)",
                        [.int(seen)]
                    )
                    for row in rows {
                        if let member = UUID(uuidString: try row.text("member_uuid")) {
                            feed.publish(.changed(member))
                        } else {
                            // A change this watch cannot name: forget every card rather than keep a stale one.
                            feed.publish(.interrupted)
                            feed.publish(.listening)
                        }
                        last = try row.int("seq")
                    }
                    caughtUp = rows.count < Self.chunk
                } else {
                    // The starting point: every change up to it is already in the file, for any read to see.
                    last = try await read("SELECT COALESCE(MAX(rowid), 0) AS seq FROM member_changes", [])[0].int("seq")
                    feed.publish(.listening)
                }
            } catch {
                // Before the migrations have made the table, or a read refused: start afresh once reads work.
                if last != nil { feed.publish(.interrupted) }
                last = nil
            }
            if caughtUp { try? await Task.sleep(for: interval) }
        }
        if last != nil { feed.publish(.interrupted) }
    }
}
