import Foundation

/// Dates as a person types them at the counter or in a script, and as the cards show them.
enum CardDates {
    /// Algeria's time zone: UTC+1 all year.
    static let algiers = TimeZone(identifier: "Africa/Algiers") ?? TimeZone(secondsFromGMT: 3600)!

    /// Parses `YYYY-MM-DD` (valid through that whole day, Algiers time), ISO-8601 date-time, or epoch seconds.
    static func parseExpiry(_ text: String) -> UInt64? {
        if let seconds = UInt64(text) { return seconds }
        if text.count == 10, let day = dayFormatter.date(from: text) {
            return UInt64(day.timeIntervalSince1970) + 86_400
        }
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime]
        if let date = iso.date(from: text) { return UInt64(max(0, date.timeIntervalSince1970)) }
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = iso.date(from: text) { return UInt64(max(0, date.timeIntervalSince1970)) }
        return nil
    }

    /// `2026-12-31 23:59` in Algiers time.
    static func display(_ seconds: UInt64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = algiers
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(min(seconds, 253_402_300_799))))
    }

    /// The current time in whole seconds since the epoch.
    static func now() -> UInt64 { UInt64(Date().timeIntervalSince1970) }

    private static let dayFormatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = algiers
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.isLenient = false
        return formatter
    }()
}
