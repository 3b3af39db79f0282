import CounterAssets
import Foundation

/// The rules both counters follow, read from `counter-rules.json` (built into the binary), the file the web
/// counter reads too: the price, the months sold, the clock tolerance, the trust data's warning age, the time
/// range, the scan-report batch, the scan log's chain genesis, how often a counter syncs and which refusals cut it off.
public struct CounterRules: Decodable, Sendable, Equatable {
    /// The price of one month, in DZD.
    public let monthlyPriceDZD: Int
    /// The numbers of months a counter sells.
    public let monthsSold: [Int]
    /// How far the device's clock may be behind the newest service time seen before it is called wrong, in seconds.
    public let clockTolerance: Int64
    /// Trust data older than this since the last successful sync carries a warning, in seconds.
    public let trustWarningAge: Int64
    /// The first and last second a scan-log entry may be timed with.
    public let timeRange: [Int64]
    /// Scan-log entries sent in one report, at most.
    public let scanReportBatch: Int
    /// The hash the scan log's chain starts from.
    public let scanLogGenesis: String
    /// Seconds between a running counter's syncs.
    public let syncEvery: Int
    /// The development key's kid, trusted only by a counter enrolled against a development service
    /// (``CardWire/DevelopmentKey``, which a test holds this to).
    public let developmentKeyID: String
    /// The service's error codes that refuse the counter's own credential (revoked, or replaced and expired):
    /// the counter is cut off (``CounterCutOff``).
    public let deviceRefusals: [String]

    enum CodingKeys: String, CodingKey {
        case monthlyPriceDZD = "monthly_price_dzd"
        case monthsSold = "months_sold"
        case clockTolerance = "clock_tolerance"
        case trustWarningAge = "trust_warning_age"
        case timeRange = "time_range"
        case scanReportBatch = "scan_report_batch"
        case scanLogGenesis = "scan_log_genesis"
        case syncEvery = "sync_every"
        case developmentKeyID = "development_key_id"
        case deviceRefusals = "device_refusals"
    }

    /// The built-in rules, checked once: a damaged file is a broken build, not a counter that guesses.
    public static let shared: CounterRules = {
        do {
            let rules = try JSONDecoder().decode(CounterRules.self, from: Data(CounterAssets.counterRules))
            precondition(rules.timeRange.count == 2 && rules.timeRange[0] < rules.timeRange[1], "counter-rules.json: time_range is not [first, last]")
            precondition(rules.scanLogGenesis.count == 64, "counter-rules.json: scan_log_genesis is not 64 hex digits")
            return rules
        } catch {
            preconditionFailure("counter-rules.json cannot be read: \(error)")
        }
    }()

    /// The price of `months` months, in DZD.
    public func price(months: Int) -> Int { monthlyPriceDZD * months }
}
