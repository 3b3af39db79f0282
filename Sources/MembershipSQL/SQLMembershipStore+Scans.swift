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
                    INSERT INTO counter_scans (vendor_id, counter_id, seq, scanned_at, verdict, membership_id, token_id, offline, trust_age, received_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (vendor_id, counter_id, seq) DO NOTHING RETURNING seq
                    """,
                    [.text(vendorID.uuidString), .text(scan.counterID.uuidString), .int(scan.seq), .int(scan.scannedAt), .text(scan.verdict),
                     scan.membershipID.map(SQLValue.text) ?? .null, scan.tokenID.map(SQLValue.text) ?? .null,
                     .int(scan.offline ? 1 : 0), .int(scan.trustAge), .int(now)])
                stored += inserted.count
            }
            return stored
        }
    }

    public func reportedScans(membershipID: String?, tokenID: String?, limit: Int) async throws -> [ReportedScan] {
        var filters: [String] = []
        var binds: [SQLValue] = []
        if let membershipID { filters.append("s.membership_id = ?"); binds.append(.text(membershipID)) }
        if let tokenID { filters.append("s.token_id = ?"); binds.append(.text(tokenID)) }
        let condition = filters.isEmpty ? "" : "WHERE " + filters.joined(separator: " AND ")
        let values = binds + [.int(Int64(limit))]
        return try await database.read { db in
            try await db.query(
                "SELECT \(Self.scanColumns("s", "v")) FROM counter_scans s JOIN vendors v ON v.id = s.vendor_id \(condition) ORDER BY s.scanned_at DESC, s.seq DESC LIMIT ?",
                values
            ).map { try Self.reportedScan($0, "") }
        }
    }

    public func sharedCards(within: Int64, since: Int64, limit: Int) async throws -> [SharedCardSighting] {
        // Every pair of scans of one card at two shops close enough in time; the later scan of a pair is
        // strictly later, or at the same second from the shop with the larger id, so each pair comes once.
        let rows = try await database.read { db in
            try await db.query(
                """
                SELECT \(Self.scanColumns("a", "va", prefix: "a_")), \(Self.scanColumns("b", "vb", prefix: "b_"))
                FROM counter_scans a
                JOIN counter_scans b ON b.token_id = a.token_id AND b.vendor_id <> a.vendor_id
                    AND b.scanned_at <= a.scanned_at + ?
                    AND (b.scanned_at > a.scanned_at OR (b.scanned_at = a.scanned_at AND b.vendor_id > a.vendor_id))
                JOIN vendors va ON va.id = a.vendor_id
                JOIN vendors vb ON vb.id = b.vendor_id
                WHERE a.token_id IS NOT NULL AND a.scanned_at >= ?
                ORDER BY b.scanned_at DESC
                LIMIT 10000
                """,
                [.int(within), .int(since)])
        }
        var closest: [String: SharedCardSighting] = [:]
        for row in rows {
            let sighting = SharedCardSighting(earlier: try Self.reportedScan(row, "a_"), later: try Self.reportedScan(row, "b_"))
            let card = sighting.earlier.scan.tokenID ?? ""
            if let kept = closest[card], kept.secondsApart <= sighting.secondsApart { continue }
            closest[card] = sighting
        }
        return closest.values.sorted { ($0.later.scan.scannedAt, $0.later.scan.tokenID ?? "") > ($1.later.scan.scannedAt, $1.later.scan.tokenID ?? "") }
            .prefix(limit).map { $0 }
    }

    private static func scanColumns(_ scans: String, _ vendors: String, prefix: String = "") -> String {
        ["vendor_id", "counter_id", "seq", "scanned_at", "verdict", "membership_id", "token_id", "offline", "trust_age", "received_at"]
            .map { "\(scans).\($0) AS \(prefix)\($0)" }.joined(separator: ", ") + ", \(vendors).name AS \(prefix)vendor_name"
    }

    private static func reportedScan(_ row: SQLRow, _ prefix: String) throws -> ReportedScan {
        guard let vendorID = UUID(uuidString: try row.text(prefix + "vendor_id")),
              let counterID = UUID(uuidString: try row.text(prefix + "counter_id")) else { throw SQLError.unexpectedValue(prefix + "vendor_id") }
        let scan = CounterScan(
            counterID: counterID, seq: try row.int(prefix + "seq"), scannedAt: try row.int(prefix + "scanned_at"),
            verdict: try row.text(prefix + "verdict"), membershipID: try row.optionalText(prefix + "membership_id"),
            tokenID: try row.optionalText(prefix + "token_id"), offline: try row.int(prefix + "offline") != 0,
            trustAge: try row.int(prefix + "trust_age"))
        return ReportedScan(scan: scan, vendorID: vendorID, vendorName: try row.text(prefix + "vendor_name"),
                            receivedAt: try row.int(prefix + "received_at"))
    }
}
