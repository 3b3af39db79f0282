import Foundation
import Membership

/// Dates as a person types them at the counter or in a script, and as the cards show them (Algiers time,
/// through ``AlgiersCalendar``).
enum CardDates {
    /// Parses `YYYY-MM-DD` (valid through that whole day, Algiers time), ISO-8601 date-time, or epoch seconds.
    static func parseExpiry(_ text: String) -> UInt64? {
        if let seconds = UInt64(text) { return seconds }
        if let start = AlgiersCalendar.startOfDay(text) { return UInt64(max(0, start + 86_400)) }
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime]
        if let date = iso.date(from: text) { return UInt64(max(0, date.timeIntervalSince1970)) }
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = iso.date(from: text) { return UInt64(max(0, date.timeIntervalSince1970)) }
        return nil
    }

    /// `2026-12-31 23:59` in Algiers time.
    static func display(_ seconds: UInt64) -> String {
        AlgiersCalendar.minuteStamp(Int64(min(seconds, 253_402_300_799)))
    }

    /// Days of paid time left, as the API counts them (``CoverageSchedule/daysLeft(until:now:)``).
    static func daysLeft(until end: UInt64, now: UInt64) -> Int {
        CoverageSchedule.daysLeft(until: Int64(min(end, UInt64(Int64.max))), now: Int64(min(now, UInt64(Int64.max))))
    }

    /// The current time in whole seconds since the epoch.
    static func now() -> UInt64 { UInt64(Date().timeIntervalSince1970) }
}
