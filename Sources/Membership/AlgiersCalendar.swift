public import Foundation

/// Calendar arithmetic in Algeria's time zone (UTC+1, no daylight saving), on whole seconds since the epoch.
public enum AlgiersCalendar {
    /// Africa/Algiers.
    public static let timeZone = TimeZone(identifier: "Africa/Algiers") ?? TimeZone(secondsFromGMT: 3600)!

    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }()

    /// `start` plus `months` calendar months, anchored on `start` and clamped to the end of a shorter month:
    /// Jan 31 + 1 month is the last day of February, + 2 months is Mar 31. The time of day is kept.
    public static func adding(months: Int, to start: Int64) -> Int64 {
        let date = Date(timeIntervalSince1970: TimeInterval(start))
        let end = calendar.date(byAdding: .month, value: months, to: date)!
        return Int64(end.timeIntervalSince1970.rounded())
    }

    /// The Algiers calendar day of `seconds` as `YYYYMMDD`.
    public static func dayStamp(_ seconds: Int64) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        return String(format: "%04d%02d%02d", parts.year!, parts.month!, parts.day!)
    }

    /// `seconds` as ISO-8601 with the Algiers offset, e.g. `2026-12-31T23:59:59+01:00`.
    public static func iso8601(_ seconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = timeZone
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
