import CardToken
public import Foundation

/// One verdict a vendor's counter gave, as its scan log recorded it and its sync reported it: never the token,
/// only which card (its token id) of which member, when, and what the counter answered.
public struct CounterScan: Sendable, Equatable {
    /// The counter (one till of a shop) that gave the verdict; its entries are numbered from 1.
    public var counterID: UUID
    /// The entry's number in that counter's log. A counter, a vendor and a number name one scan: reported
    /// again, it is stored once.
    public var seq: Int64
    /// The counter's clock at the scan (seconds since the epoch): the device's, so only as right as it is.
    public var scannedAt: Int64
    /// The counter's verdict code (`valid`, `expired`, `revoked`, `cannot_confirm`, …).
    public var verdict: String
    /// The membership id, when the card was authentic.
    public var membershipID: String?
    /// The card's token id (16 hex digits), when the card was authentic.
    public var tokenID: String?
    /// Verified from the counter's cached trust data, without the network.
    public var offline: Bool
    /// How old the counter's trust data was, in seconds (0 when ``clockWrong``).
    public var trustAge: Int64
    /// The counter's clock was wrong (read earlier than its last sync or the service's time it had seen).
    public var clockWrong: Bool
    /// When the phone made the presentation scanned (by the phone's clock), nil for a card shown bare. The
    /// token id and this time name one presentation: seen at two counters, it was copied.
    public var presentedAt: Int64?

    public init(
        counterID: UUID,
        seq: Int64,
        scannedAt: Int64,
        verdict: String,
        membershipID: String?,
        tokenID: String?,
        offline: Bool,
        trustAge: Int64,
        clockWrong: Bool = false,
        presentedAt: Int64? = nil
    ) {
        self.counterID = counterID
        self.seq = seq
        self.scannedAt = scannedAt
        self.verdict = verdict
        self.membershipID = membershipID
        self.tokenID = tokenID
        self.offline = offline
        self.trustAge = trustAge
        self.clockWrong = clockWrong
        self.presentedAt = presentedAt
    }

    /// The scan `entry` of the log of counter `counterID` reports.
    public init(_ entry: ScanLogEntry, counterID: UUID) {
        self.init(
            counterID: counterID,
            seq: Int64(entry.seq),
            scannedAt: entry.at,
            verdict: entry.verdict,
            membershipID: entry.member,
            tokenID: entry.tokenID,
            offline: entry.offline,
            trustAge: entry.trustAge,
            clockWrong: entry.clockWrong,
            presentedAt: entry.presentedAt
        )
    }

    /// Verdict codes a counter gives: the verifier's, and `cannot_confirm`.
    public static let verdicts = Verdict.allCases.map(\.rawValue) + ["cannot_confirm"]
    /// Scans one report may carry.
    public static let maxPerReport = 500
}

/// A scan as the service keeps it: which shop reported it, and when.
public struct ReportedScan: Sendable, Equatable {
    public var scan: CounterScan
    public var vendorID: UUID
    public var vendorName: String
    public var receivedAt: Int64

    public init(scan: CounterScan, vendorID: UUID, vendorName: String, receivedAt: Int64) {
        self.scan = scan
        self.vendorID = vendorID
        self.vendorName = vendorName
        self.receivedAt = receivedAt
    }
}

/// One card seen at two different shops within a short time: a card shown at one counter and, minutes later,
/// at another, which one phone cannot do; most likely a shared screenshot.
public struct SharedCardSighting: Sendable, Equatable {
    public var earlier: ReportedScan
    public var later: ReportedScan

    public init(earlier: ReportedScan, later: ReportedScan) {
        self.earlier = earlier
        self.later = later
    }

    /// Seconds between the two scans, by the counters' clocks.
    public var secondsApart: Int64 { later.scan.scannedAt - earlier.scan.scannedAt }
}
