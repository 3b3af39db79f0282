#if canImport(Glibc)
import Glibc
#endif

/// HTTP dates in the IMF-fixdate form of RFC 9110 §5.6.7 (`Sun, 06 Nov 1994 08:49:37 GMT`), for
/// `Last-Modified` and `If-Modified-Since`.
public enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `seconds` since the epoch as an IMF-fixdate.
    public static func format(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// The seconds an IMF-fixdate names, nil for any other text (a recipient may ignore a date it cannot read).
    public static func parse(_ text: String) -> Int64? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[5] == "GMT", parts[0].count == 4, parts[0].hasSuffix(","), days.contains(String(parts[0].dropLast())),
            parts[1].count == 2, let day = Int32(parts[1]), let month = months.firstIndex(of: String(parts[2])),
            parts[3].count == 4, let year = Int32(parts[3])
        else { return nil }
        let clock = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }), let hour = Int32(clock[0]), let minute = Int32(clock[1]),
            let second = Int32(clock[2]),
            (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        var fields = tm()
        fields.tm_year = year - 1900
        fields.tm_mon = Int32(month)
        fields.tm_mday = day
        fields.tm_hour = hour
        fields.tm_min = minute
        fields.tm_sec = second
        return Int64(timegm(&fields))
    }
}
