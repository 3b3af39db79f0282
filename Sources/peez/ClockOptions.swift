import Foundation
import Membership
import PeezBasics

/// Dates as a person types them at the counter or in a script, and as the cards show them (Algiers time,
/// through ``AlgiersCalendar``). Every time is whole seconds since the epoch as `Int64`, as everywhere else.
enum CardDates {
    /// Parses `YYYY-MM-DD` (valid through that whole day, Algiers time), ISO-8601 date-time, or epoch seconds.
    static func parseExpiry(_ text: String) -> Int64? {
        if let start = AlgiersCalendar.startOfDay(text) { return max(0, start + 86_400) }
        return parseInstant(text)
    }

    /// Parses an instant: ISO-8601 date-time or epoch seconds.
    static func parseInstant(_ text: String) -> Int64? {
        if let seconds = Int64(text), seconds >= 0 { return seconds }
        let iso = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds]] {
            iso.formatOptions = options
            if let date = iso.date(from: text) { return max(0, Int64(date.timeIntervalSince1970)) }
        }
        return nil
    }

    /// `2026-12-31 23:59` in Algiers time.
    static func display(_ seconds: Int64) -> String {
        AlgiersCalendar.minuteStamp(seconds)
    }

    /// The command line's one clock: the system's, handed to every service it starts.
    static let clock = WallClock.system

    /// The current time in whole seconds since the epoch.
    static func now() -> Int64 { clock() }
}
