public import Foundation

/// Where counters' scan logs are kept, and the admin's views of them.
public protocol ScanStore: Sendable {
    /// Keeps the scans a vendor's counter reported; a scan already kept (the same vendor, counter and entry
    /// number) is left as it was. Returns how many were new.
    func recordScans(_ scans: [CounterScan], vendorID: UUID, now: Int64) async throws -> Int
    /// Reported scans, newest first: of one member's cards, of one card, or all.
    func reportedScans(membershipID: String?, tokenID: String?, limit: Int) async throws -> [ReportedScan]
    /// Cards scanned at two different shops at most `within` seconds apart, scans since `since`; the closest
    /// pair of each card, newest first.
    func sharedCards(within: Int64, since: Int64, limit: Int) async throws -> [SharedCardSighting]
}
