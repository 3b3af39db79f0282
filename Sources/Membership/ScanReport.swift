import Foundation

/// One verdict a counter gave, as its scan log keeps it and its sync reports it (`POST /v1/counter/scans`):
/// never the token, only which card of which member, when, and how far the counter's data could be trusted.
///
/// The counter writes it and the service reads it through the same rules (``problems`` and
/// ``refusal(serviceNow:)``), so a counter never logs an entry the service would refuse for its values.
public struct ScanLogEntry: Codable, Sendable, Equatable {
    /// The entry's number in the counter's log, from 1.
    public var seq: Int
    /// The device's clock at the scan (seconds since the epoch); when ``clockWrong`` and the reading was
    /// outside ``timeRange``, the service's time last seen instead.
    public var at: Int64
    /// The counter's verdict code (one of ``CounterScan/verdicts``).
    public var verdict: String
    /// The membership id, when the card was authentic.
    public var member: String?
    /// The card's token id (`cti`, 16 lowercase hex digits), when the card was authentic.
    public var tokenID: String?
    /// Verified on the device, from its cached trust data, with no network.
    public var offline: Bool
    /// Seconds since the trust data was last synced, by the device's clock; 0 when ``clockWrong``.
    public var trustAge: Int64
    /// The device's clock read earlier than its last sync or the service's time already seen: set back or
    /// wrong, so ``at`` is only the device's word and the trust data's age is not known.
    public var clockWrong: Bool
    /// When the phone made the presentation scanned (its clock, within ``timeRange``), nil for a card shown
    /// bare; given once the presentation's device signature verified.
    public var presentedAt: Int64?

    enum CodingKeys: String, CodingKey {
        case seq, at, verdict, member, offline
        case tokenID = "token_id"
        case trustAge = "trust_age"
        case clockWrong = "clock_wrong"
        case presentedAt = "presented_at"
    }

    public init(
        seq: Int,
        at: Int64,
        verdict: String,
        member: String?,
        tokenID: String?,
        offline: Bool,
        trustAge: Int64,
        clockWrong: Bool = false,
        presentedAt: Int64? = nil
    ) {
        self.seq = seq
        self.at = at
        self.verdict = verdict
        self.member = member
        self.tokenID = tokenID
        self.offline = offline
        self.trustAge = trustAge
        self.clockWrong = clockWrong
        self.presentedAt = presentedAt
    }

    /// Logs written before `clock_wrong` existed lack it: false.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        seq = try container.decode(Int.self, forKey: .seq)
        at = try container.decode(Int64.self, forKey: .at)
        verdict = try container.decode(String.self, forKey: .verdict)
        member = try container.decodeIfPresent(String.self, forKey: .member)
        tokenID = try container.decodeIfPresent(String.self, forKey: .tokenID)
        offline = try container.decode(Bool.self, forKey: .offline)
        trustAge = try container.decode(Int64.self, forKey: .trustAge)
        clockWrong = try container.decodeIfPresent(Bool.self, forKey: .clockWrong) ?? false
        presentedAt = try container.decodeIfPresent(Int64.self, forKey: .presentedAt)
    }

    /// Scan times the service takes: from 2024-01-01 to the end of 2099 (UTC). Outside it a device's clock is
    /// wrong, and the report's arithmetic on times (seconds apart) can never overflow.
    public static let timeRange: ClosedRange<Int64> = 1_704_067_200...4_102_444_799
    /// How far past the service's own clock a scan time may be: a day (a device's clock a little ahead is
    /// common; a day more is a wrong clock, and such a time would sort before every real scan for ever).
    public static let futureAllowance: Int64 = 86_400

    /// The entry a counter logs for a verdict given when the device's clock read `deviceTime`. A clock read
    /// earlier than the last sync or the service's time already seen (less `tolerance`) is recorded as wrong,
    /// with no trust age; a reading outside ``timeRange`` is replaced by the service's time last seen.
    public static func recorded(
        seq: Int,
        deviceTime: Int64,
        verdict: String,
        member: String?,
        tokenID: String?,
        offline: Bool,
        presentedAt: Int64? = nil,
        lastSyncAt: Int64,
        newestServerTime: Int64,
        tolerance: Int64
    ) -> ScanLogEntry {
        let clockWrong = deviceTime < lastSyncAt || deviceTime < newestServerTime - tolerance || !timeRange.contains(deviceTime)
        let at = timeRange.contains(deviceTime) ? deviceTime : min(max(newestServerTime, timeRange.lowerBound), timeRange.upperBound)
        return ScanLogEntry(
            seq: seq,
            at: at,
            verdict: verdict,
            member: member,
            tokenID: tokenID,
            offline: offline,
            trustAge: clockWrong ? 0 : deviceTime - lastSyncAt,
            clockWrong: clockWrong,
            presentedAt: presentedAt.flatMap { timeRange.contains($0) ? $0 : nil }
        )
    }

    /// Field → problem for every value rule the entry breaks (those the API document states); empty when
    /// none. A body that breaks one is the client's fault, answered 422 naming the entry.
    public var problems: [String: String] {
        var problems: [String: String] = [:]
        if seq < 1 { problems["seq"] = "must be 1 or more" }
        if !Self.timeRange.contains(at) {
            problems["at"] =
                "must be a time from 2024-01-01 to 2099-12-31 (\(Self.timeRange.lowerBound) to \(Self.timeRange.upperBound) seconds since 1970)"
        }
        if !CounterScan.verdicts.contains(verdict) { problems["verdict"] = "must be one of: " + CounterScan.verdicts.joined(separator: ", ") }
        if let member, !Member.isMembershipID(member) { problems["member"] = "must look like PEEZ-20251103-00002" }
        if let tokenID, !Self.isTokenID(tokenID) { problems["token_id"] = "must be 16 lowercase hex digits" }
        if let presentedAt, !Self.timeRange.contains(presentedAt) {
            problems["presented_at"] = "must be a time from 2024-01-01 to 2099-12-31, as at is"
        }
        if trustAge < 0 { problems["trust_age"] = "must be 0 or more seconds (a device whose clock is wrong sends clock_wrong instead)" }
        return problems
    }

    /// Why the service refuses this entry for good at its time `serviceNow`, or nil: a scan time more than
    /// ``futureAllowance`` ahead of the service's clock. The rest of the report is stored.
    public func refusal(serviceNow: Int64) -> String? {
        guard at > serviceNow + Self.futureAllowance else { return nil }
        return "its time (\(at)) is more than a day after the service's clock (\(serviceNow)): the counter's clock is wrong"
    }

    /// A card's token id as the log and the API write it: 16 lowercase hex digits.
    public static func isTokenID(_ text: String) -> Bool {
        text.utf8.count == 16 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
