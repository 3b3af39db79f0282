public import Membership
import PeezBasics

/// One scan a counter reported, as `GET /v1/scans` lists it.
public struct ReportedScanBody: Codable, Sendable {
    public var vendor_id: String
    public var vendor_name: String
    public var counter_id: String
    public var seq: Int64
    public var scanned_at: String
    public var verdict: String
    public var membership_id: String?
    public var token_id: String?
    public var offline: Bool
    public var trust_age_seconds: Int64
    public var clock_wrong: Bool
    /// When the phone made the presentation scanned; null for a card shown bare.
    public var presented_at: Int64?
    public var received_at: String

    public init(_ reported: ReportedScan) {
        let scan = reported.scan
        vendor_id = reported.vendorID.lowercasedText
        vendor_name = reported.vendorName
        counter_id = scan.counterID.lowercasedText
        seq = scan.seq
        scanned_at = AlgiersCalendar.iso8601(scan.scannedAt)
        verdict = scan.verdict
        membership_id = scan.membershipID
        token_id = scan.tokenID
        offline = scan.offline
        trust_age_seconds = scan.trustAge
        clock_wrong = scan.clockWrong
        presented_at = scan.presentedAt
        received_at = AlgiersCalendar.iso8601(reported.receivedAt)
    }
}

/// `GET /v1/scans`.
public struct ScanListBody: Codable, Sendable {
    /// Newest first.
    public var scans: [ReportedScanBody]

    public init(scans: [ReportedScanBody]) { self.scans = scans }
}

/// One card seen at two shops, its closest pair of scans.
public struct SharedCardBody: Codable, Sendable {
    public var token_id: String
    public var membership_id: String?
    public var seconds_apart: Int64
    /// Both scans are of one presentation (the same time made): a copy, not merely a card at two places.
    public var same_presentation: Bool
    public var earlier: ReportedScanBody
    public var later: ReportedScanBody

    public init(_ sighting: SharedCardSighting) {
        token_id = sighting.earlier.scan.tokenID ?? ""
        membership_id = sighting.earlier.scan.membershipID
        seconds_apart = sighting.secondsApart
        same_presentation = sighting.earlier.scan.presentedAt != nil && sighting.earlier.scan.presentedAt == sighting.later.scan.presentedAt
        earlier = ReportedScanBody(sighting.earlier)
        later = ReportedScanBody(sighting.later)
    }
}

/// `GET /v1/scans/shared`.
public struct SharedCardsBody: Codable, Sendable {
    public var within_seconds: Int64
    public var days: Int64
    /// The closest pair of each card, the most recent first.
    public var cards: [SharedCardBody]

    public init(within_seconds: Int64, days: Int64, cards: [SharedCardBody]) {
        self.within_seconds = within_seconds
        self.days = days
        self.cards = cards
    }
}
