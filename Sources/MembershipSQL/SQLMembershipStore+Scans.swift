public import Foundation
public import Membership
import PeezBasics

/// The scans counters report, and what an admin asks of them.
extension SQLMembershipStore {
    public func recordScans(_ scans: [CounterScan], vendorID: UUID, now: Int64) async throws -> Int {
        guard !scans.isEmpty else { return 0 }
        return try await database.write { db in
            // One statement for the report (500 entries at most, 12 values each): a scan sent again is not stored twice.
            let inserted = try await db.query(
                """
                INSERT INTO counter_scans (vendor_id, counter_id, seq, scanned_at, verdict, membership_id, token_id, offline, trust_age, clock_wrong, presented_at, received_at)
                VALUES \(scans.map { _ in "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)" }.joined(separator: ", "))
                ON CONFLICT (vendor_id, counter_id, seq) DO NOTHING RETURNING counter_id, seq
                """,
                scans.flatMap { scan -> [SQLValue] in
                    [
                        .text(vendorID.uuidString), .text(scan.counterID.uuidString), .int(scan.seq), .int(scan.scannedAt), .text(scan.verdict),
                        scan.membershipID.map(SQLValue.text) ?? .null, scan.tokenID.map(SQLValue.text) ?? .null,
                        .int(scan.offline ? 1 : 0), .int(scan.trustAge), .int(scan.clockWrong ? 1 : 0),
                        scan.presentedAt.map(SQLValue.int) ?? .null, .int(now),
                    ]
                }
            )
            let stored = Set(try inserted.map { "\(try $0.text("counter_id")) \(try $0.int("seq"))" })
            // The valid scans of a card just stored wait to be paired (``pairQueuedSightings()``): after this
            // commits, with every other report's scans committed before theirs.
            let queued = scans.filter { $0.verdict == "valid" && $0.tokenID != nil && stored.contains("\($0.counterID.uuidString) \($0.seq)") }
            if !queued.isEmpty {
                try await db.execute(
                    """
                    INSERT INTO sighting_queue (vendor_id, counter_id, scan_seq, token_id, scanned_at, presented_at)
                    VALUES \(queued.map { _ in "(?, ?, ?, ?, ?, ?)" }.joined(separator: ", "))
                    """,
                    queued.flatMap { scan -> [SQLValue] in
                        [
                            .text(vendorID.uuidString), .text(scan.counterID.uuidString), .int(scan.seq), .text(scan.tokenID!), .int(scan.scannedAt),
                            scan.presentedAt.map(SQLValue.int) ?? .null,
                        ]
                    }
                )
            }
            return stored.count
        }
    }

    /// How many queued scans one pairing takes at most.
    static let pairingBatch = 2_000

    /// Pairs one batch of the scans reports queued (the oldest, each taken by one pairer only, however many
    /// run): see ``recordSightings(of:_:)``. Every scan a queued one can pair with committed before it was queued,
    /// so pairers need no lock. Returns how many it took; 0 when none waits.
    public func pairQueuedSightings() async throws -> Int {
        try await pairQueuedSightings(upTo: .max, skippingTaken: true)
    }

    /// Pairs one batch of the queued scans numbered `upTo` or less; those another pairer has taken are passed
    /// over (`skippingTaken`) or waited for until it commits.
    private func pairQueuedSightings(upTo last: Int64, skippingTaken: Bool) async throws -> Int {
        let skipLocked = skippingTaken ? database.dialect.skipLockedClause : ""
        return try await database.write { db in
            let taken = try await db.query(
                """
                DELETE FROM sighting_queue WHERE seq IN (
                    SELECT seq FROM sighting_queue WHERE seq <= ? ORDER BY seq LIMIT \(Self.pairingBatch)\(skipLocked))
                RETURNING vendor_id, counter_id, scan_seq, token_id, scanned_at, presented_at
                """,
                [.int(last)]
            )
            try await Self.recordSightings(
                of: try taken.map { row in
                    QueuedScan(
                        key: ScanKey(
                            at: try row.int("scanned_at"),
                            vendor: try row.text("vendor_id"),
                            counter: try row.text("counter_id"),
                            seq: try row.int("scan_seq")
                        ),
                        token: try row.text("token_id"),
                        presentedAt: try row.optionalInt("presented_at")
                    )
                },
                db
            )
            return taken.count
        }
    }

    /// Pairs every scan queued when it begins: what a reader of the pairs does first, so that it reads every
    /// pair of every scan stored before it began. It waits for scans another pairer has taken (their pairs
    /// committed), and stops at the last scan queued when it began, however many reports come meanwhile. With
    /// nothing queued (the pairer keeps up) it only reads.
    func pairAllQueuedSightings() async throws {
        let queued = try await database.read { db in try await db.query("SELECT MAX(seq) AS last FROM sighting_queue", []) }
        guard let last = try queued.first?.optionalInt("last") else { return }
        while true {
            _ = try await pairQueuedSightings(upTo: last, skippingTaken: false)
            let left = try await database.read { db in try await db.query("SELECT seq FROM sighting_queue WHERE seq <= ? LIMIT 1", [.int(last)]) }
            if left.isEmpty { return }
        }
    }

    /// A valid scan of a card waiting to be paired.
    struct QueuedScan {
        var key: ScanKey
        var token: String
        var presentedAt: Int64?
    }

    public func reportedScans(membershipID: String?, tokenID: String?, limit: Int) async throws -> [ReportedScan] {
        var filters: [String] = []
        var binds: [SQLValue] = []
        if let membershipID {
            filters.append("s.membership_id = ?")
            binds.append(.text(membershipID))
        }
        if let tokenID {
            filters.append("s.token_id = ?")
            binds.append(.text(tokenID))
        }
        let condition = filters.isEmpty ? "" : "WHERE " + filters.joined(separator: " AND ")
        let values = binds + [.int(Int64(limit))]
        return try await database.read { db in
            try await db.query(
                "SELECT \(Self.scanColumns("s", "v")) FROM counter_scans s JOIN vendors v ON v.id = s.vendor_id \(condition) ORDER BY s.scanned_at DESC, s.seq DESC LIMIT ?",
                values
            ).map { try Self.reportedScan($0, "") }
        }
    }

    /// Records, for each queued scan, the pair it makes with the closest valid scan of its card at another shop
    /// (or of the same presentation at another counter) at most ``ConsoleSummaries/sharedWithin`` seconds away,
    /// among the 32 nearest before it and the 32 nearest after: one read for the whole batch, bounded work however
    /// many times a card is scanned. Whatever order scans arrive and are paired in, a card with two such scans has
    /// a pair, and its closest pair's distance is recorded: of the two scans of that pair, the one paired later
    /// sees the other (the console's anomaly report reads these pairs).
    static func recordSightings(of valid: [QueuedScan], _ db: any SQLExecutor) async throws {
        guard let first = valid.map(\.key.at).min(), let last = valid.map(\.key.at).max() else { return }
        let within = ConsoleSummaries.sharedWithin
        let tokens = Array(Set(valid.map(\.token)))
        let rows = try await db.query(
            """
            SELECT token_id, vendor_id, counter_id, seq, scanned_at, presented_at FROM counter_scans
            WHERE token_id IN (\(tokens.map { _ in "?" }.joined(separator: ", "))) AND verdict = 'valid' AND scanned_at BETWEEN ? AND ?
            LIMIT 20000
            """,
            tokens.map(SQLValue.text) + [.int(first.subtractingClamped(within)), .int(last.addingClamped(within))]
        )
        var byCard: [String: [(key: ScanKey, presentedAt: Int64?)]] = [:]
        for row in rows {
            let key = ScanKey(
                at: try row.int("scanned_at"),
                vendor: try row.text("vendor_id"),
                counter: try row.text("counter_id"),
                seq: try row.int("seq")
            )
            byCard[try row.text("token_id"), default: []].append((key, try row.optionalInt("presented_at")))
        }
        for card in byCard.keys { byCard[card]!.sort { $0.key < $1.key } }
        var pairs: [[SQLValue]] = []
        for scan in valid {
            let token = scan.token
            let this = scan.key
            let card = byCard[token] ?? []
            // Where this scan stands in its card's time order; the 32 on each side.
            var (low, high) = (0, card.count)
            while low < high {
                let middle = (low + high) / 2
                if card[middle].key < this { low = middle + 1 } else { high = middle }
            }
            let place = low
            var closest: ScanKey?
            for (other, presentedAt) in card[max(0, place - 32)..<min(card.count, place + 33)] {
                let samePresentation = scan.presentedAt != nil && scan.presentedAt == presentedAt
                let distance = abs(other.at - this.at)
                guard other != this, distance <= within, other.vendor != this.vendor || (other.counter != this.counter && samePresentation)
                else { continue }
                if let kept = closest, (abs(kept.at - this.at), kept) <= (distance, other) { continue }
                closest = other
            }
            guard let other = closest else { continue }
            let (earlier, later) = other < this ? (other, this) : (this, other)
            pairs.append([
                .text(earlier.vendor), .text(earlier.counter), .int(earlier.seq), .text(later.vendor), .text(later.counter), .int(later.seq),
                .text(token), .int(later.at), .int(later.at - earlier.at),
            ])
        }
        guard !pairs.isEmpty else { return }
        try await db.execute(
            """
            INSERT INTO shared_sightings (earlier_vendor_id, earlier_counter_id, earlier_seq, later_vendor_id, later_counter_id, later_seq,
                token_id, later_at, seconds_apart) VALUES \(pairs.map { _ in "(?, ?, ?, ?, ?, ?, ?, ?, ?)" }.joined(separator: ", "))
            ON CONFLICT DO NOTHING
            """,
            pairs.flatMap { $0 }
        )
    }

    /// A scan's place in time order: its time, then its shop, counter and entry.
    struct ScanKey: Comparable {
        var at: Int64
        var vendor: String
        var counter: String
        var seq: Int64

        static func < (lhs: ScanKey, rhs: ScanKey) -> Bool {
            (lhs.at, lhs.vendor, lhs.counter, lhs.seq) < (rhs.at, rhs.vendor, rhs.counter, rhs.seq)
        }
    }

    /// From the pairs ``recordSightings(of:_:)`` keeps whose later scan is in `from..<until` (every queued scan
    /// paired first): the `cards` cards whose latest pair is the most recent, each with its closest pair (the most
    /// recent of equals), however many pairs each has.
    public func closestSharedSightings(from: Int64, until: Int64, cards: Int) async throws -> [SharedCardSighting] {
        try await pairAllQueuedSightings()
        let earlier = Self.scanColumns("a", "va", prefix: "a_")
        let later = Self.scanColumns("b", "vb", prefix: "b_")
        return try await database.readReport { db in
            try await db.query(
                """
                WITH recent AS (
                    SELECT token_id, MAX(later_at) AS last_at FROM shared_sightings WHERE later_at >= ? AND later_at < ?
                    GROUP BY token_id ORDER BY last_at DESC, token_id LIMIT ?
                ), ranked AS (
                    SELECT p.*, r.last_at, ROW_NUMBER() OVER (PARTITION BY p.token_id ORDER BY p.seconds_apart, p.later_at DESC) AS closeness
                    FROM shared_sightings p JOIN recent r ON r.token_id = p.token_id WHERE p.later_at >= ? AND p.later_at < ?
                )
                SELECT \(earlier), \(later) FROM ranked p
                JOIN counter_scans a ON a.vendor_id = p.earlier_vendor_id AND a.counter_id = p.earlier_counter_id AND a.seq = p.earlier_seq
                JOIN counter_scans b ON b.vendor_id = p.later_vendor_id AND b.counter_id = p.later_counter_id AND b.seq = p.later_seq
                JOIN vendors va ON va.id = a.vendor_id
                JOIN vendors vb ON vb.id = b.vendor_id
                WHERE p.closeness = 1 ORDER BY p.last_at DESC, p.token_id
                """,
                [.int(from), .int(until), .int(Int64(cards)), .int(from), .int(until)]
            ).map { SharedCardSighting(earlier: try Self.reportedScan($0, "a_"), later: try Self.reportedScan($0, "b_")) }
        }
    }

    /// The most recent scans one shared-cards report reads: its work is bounded whatever was reported.
    public static let sharedCardsScanLimit = 250_000

    public func sharedCards(within: Int64, since: Int64, limit: Int) async throws -> [SharedCardSighting] {
        // One pass over each card's scans in time order. The closest pair of scans at two shops is always
        // two neighbours in that order (a scan between them is from a shop other than one of the two, so it
        // makes a pair no farther apart), so each scan is compared with the one before it only: a sort and a
        // scan, not every pair. The sort holds only keys; the whole rows are read back for the pairs kept.
        // Times are bounded where they enter, and a difference of two non-negative times cannot overflow.
        //
        // One presentation (a token id and the time the phone made it) scanned at two counters, even of one
        // shop, is a copy passed on within its minute: such a neighbouring pair is reported too.
        let row = database.dialect.rowIdentity
        let columns = Self.scanColumnNames
        let earlier = columns.map { "a.\($0) AS a_\($0)" }.joined(separator: ", ") + ", va.name AS a_vendor_name"
        let later = columns.map { "b.\($0) AS b_\($0)" }.joined(separator: ", ") + ", vb.name AS b_vendor_name"
        let rows = try await database.readReport { db in
            try await db.query(
                """
                WITH recent AS (
                    SELECT \(row) AS row_id, token_id, scanned_at, vendor_id, counter_id, presented_at FROM counter_scans
                    WHERE token_id IS NOT NULL AND verdict = 'valid' AND scanned_at >= ? ORDER BY scanned_at DESC LIMIT ?
                ), neighbours AS (
                    SELECT row_id, token_id, scanned_at, vendor_id, counter_id, presented_at, LAG(row_id) OVER card_time AS p_row_id,
                        LAG(vendor_id) OVER card_time AS p_vendor_id, LAG(scanned_at) OVER card_time AS p_scanned_at,
                        LAG(counter_id) OVER card_time AS p_counter_id, LAG(presented_at) OVER card_time AS p_presented_at
                    FROM recent WINDOW card_time AS (PARTITION BY token_id ORDER BY scanned_at, vendor_id, row_id)
                ), closest AS (
                    SELECT row_id, p_row_id, token_id, scanned_at,
                        ROW_NUMBER() OVER (PARTITION BY token_id ORDER BY scanned_at - p_scanned_at, scanned_at DESC) AS closeness
                    FROM neighbours
                    WHERE p_vendor_id IS NOT NULL AND scanned_at - p_scanned_at <= ?
                        AND (p_vendor_id <> vendor_id OR (p_counter_id <> counter_id AND p_presented_at = presented_at))
                )
                SELECT \(earlier), \(later) FROM closest
                JOIN counter_scans a ON a.\(row) = closest.p_row_id
                JOIN counter_scans b ON b.\(row) = closest.row_id
                JOIN vendors va ON va.id = a.vendor_id
                JOIN vendors vb ON vb.id = b.vendor_id
                WHERE closeness = 1
                ORDER BY closest.scanned_at DESC, closest.token_id DESC
                LIMIT ?
                """,
                [.int(since), .int(Int64(Self.sharedCardsScanLimit)), .int(within), .int(Int64(limit))]
            )
        }
        return try rows.map { SharedCardSighting(earlier: try Self.reportedScan($0, "a_"), later: try Self.reportedScan($0, "b_")) }
    }

    /// The columns of `counter_scans` a reported scan is read from.
    private static let scanColumnNames = [
        "vendor_id", "counter_id", "seq", "scanned_at", "verdict", "membership_id", "token_id", "offline", "trust_age", "clock_wrong",
        "presented_at", "received_at",
    ]

    static func scanColumns(_ scans: String, _ vendors: String, prefix: String = "") -> String {
        scanColumnNames.map { "\(scans).\($0) AS \(prefix)\($0)" }.joined(separator: ", ") + ", \(vendors).name AS \(prefix)vendor_name"
    }

    static func reportedScan(_ row: SQLRow, _ prefix: String) throws -> ReportedScan {
        guard let vendorID = UUID(uuidString: try row.text(prefix + "vendor_id")),
            let counterID = UUID(uuidString: try row.text(prefix + "counter_id"))
        else { throw SQLError.unexpectedValue(prefix + "vendor_id") }
        let scan = CounterScan(
            counterID: counterID,
            seq: try row.int(prefix + "seq"),
            scannedAt: try row.int(prefix + "scanned_at"),
            verdict: try row.text(prefix + "verdict"),
            membershipID: try row.optionalText(prefix + "membership_id"),
            tokenID: try row.optionalText(prefix + "token_id"),
            offline: try row.int(prefix + "offline") != 0,
            trustAge: try row.int(prefix + "trust_age"),
            clockWrong: try row.int(prefix + "clock_wrong") != 0,
            presentedAt: try row.optionalInt(prefix + "presented_at")
        )
        return ReportedScan(
            scan: scan,
            vendorID: vendorID,
            vendorName: try row.text(prefix + "vendor_name"),
            receivedAt: try row.int(prefix + "received_at")
        )
    }
}
