public import Foundation
public import Membership

/// The scans counters report, and what an admin asks of them.
extension SQLMembershipStore {
    public func recordScans(_ scans: [CounterScan], vendorID: UUID, now: Int64) async throws -> Int {
        guard !scans.isEmpty else { return 0 }
        return try await database.write { db in
            var stored = 0
            for scan in scans {
                let inserted = try await db.query(
                    """
                    INSERT INTO counter_scans (vendor_id, counter_id, seq, scanned_at, verdict, membership_id, token_id, offline, trust_age, clock_wrong, presented_at, received_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (vendor_id, counter_id, seq) DO NOTHING RETURNING seq
                    """,
                    [
                        .text(vendorID.uuidString), .text(scan.counterID.uuidString), .int(scan.seq), .int(scan.scannedAt), .text(scan.verdict),
                        scan.membershipID.map(SQLValue.text) ?? .null, scan.tokenID.map(SQLValue.text) ?? .null,
                        .int(scan.offline ? 1 : 0), .int(scan.trustAge), .int(scan.clockWrong ? 1 : 0),
                        scan.presentedAt.map(SQLValue.int) ?? .null, .int(now),
                    ]
                )
                stored += inserted.count
            }
            return stored
        }
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

    private static func scanColumns(_ scans: String, _ vendors: String, prefix: String = "") -> String {
        scanColumnNames.map { "\(scans).\($0) AS \(prefix)\($0)" }.joined(separator: ", ") + ", \(vendors).name AS \(prefix)vendor_name"
    }

    private static func reportedScan(_ row: SQLRow, _ prefix: String) throws -> ReportedScan {
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
