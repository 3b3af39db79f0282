/// Calendar arithmetic in Algeria's time, on whole seconds since the epoch.
///
/// Africa/Algiers has been UTC+1 all year, without daylight saving, since 1981, so local dates are plain
/// integer arithmetic on a fixed offset: no ICU calendar or formatter is built on the hot paths (they cost a
/// quarter of the service's CPU when they were). A test holds every function to Foundation's Africa/Algiers
/// calendar on thousands of random instants.
public enum AlgiersCalendar {
    /// Seconds east of UTC.
    public static let utcOffset: Int64 = 3600

    /// `start` plus `months` calendar months, anchored on `start` and clamped to the end of a shorter month:
    /// Jan 31 + 1 month is the last day of February, + 2 months is Mar 31. The time of day is kept.
    public static func adding(months: Int, to start: Int64) -> Int64 {
        let (days, secondOfDay) = localDay(start)
        let date = civil(fromDays: days)
        let monthIndex = date.year * 12 + (date.month - 1) + Int64(months)
        let year = floorDivide(monthIndex, 12)
        let month = monthIndex - year * 12 + 1
        let day = min(date.day, daysIn(month: month, year: year))
        return self.days(fromYear: year, month: month, day: day) * 86_400 + secondOfDay - utcOffset
    }

    /// The Algiers calendar day of `seconds` as `YYYYMMDD`.
    public static func dayStamp(_ seconds: Int64) -> String {
        let date = civil(fromDays: localDay(seconds).days)
        return text { out in
            digits(date.year, 4, &out)
            digits(date.month, 2, &out)
            digits(date.day, 2, &out)
        }
    }

    /// `seconds` as ISO-8601 with the Algiers offset, e.g. `2026-12-31T23:59:59+01:00`.
    public static func iso8601(_ seconds: Int64) -> String {
        text { out in
            dateAndTime(seconds, separator: "T", withSeconds: true, &out)
            out += "+01:00".utf8
        }
    }

    /// `seconds` as a person reads it on a card or a receipt, e.g. `2026-12-31 23:59` (Algiers time).
    public static func minuteStamp(_ seconds: Int64) -> String {
        text { out in dateAndTime(seconds, separator: " ", withSeconds: false, &out) }
    }

    /// The moment the Algiers day `YYYY-MM-DD` begins, or nil unless `text` is exactly a real date in that form.
    public static func startOfDay(_ text: String) -> Int64? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }),
            let year = Int64(parts[0]), let month = Int64(parts[1]), let day = Int64(parts[2]),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        return days(fromYear: year, month: month, day: day) * 86_400 - utcOffset
    }

    /// Calendar days in Algiers from the day of `start` to the day of `end` (0 on the same day, 1 for the next,
    /// negative when `end` is on an earlier day).
    public static func calendarDays(from start: Int64, to end: Int64) -> Int64 {
        localDay(end).days - localDay(start).days
    }

    /// The Algiers day of `seconds` as a number: days since 1970-01-01 in Algiers (what the summaries are keyed by).
    public static func dayNumber(_ seconds: Int64) -> Int64 { localDay(seconds).days }

    /// The Algiers day numbered `day` (``dayNumber(_:)``) as `YYYY-MM-DD`.
    public static func dayText(_ day: Int64) -> String {
        let date = civil(fromDays: min(max(day, -719_162), 2_932_896))
        return text { out in
            digits(date.year, 4, &out)
            out.append(UInt8(ascii: "-"))
            digits(date.month, 2, &out)
            out.append(UInt8(ascii: "-"))
            digits(date.day, 2, &out)
        }
    }

    /// The month of the Algiers day numbered `day` as the number `YYYYMM`.
    public static func month(ofDay day: Int64) -> Int64 {
        let date = civil(fromDays: min(max(day, -719_162), 2_932_896))
        return date.year * 100 + date.month
    }

    /// The first Algiers day number of the month `YYYYMM` moved by `months` (a negative number moves back).
    public static func firstDay(ofMonth month: Int64, adding months: Int64 = 0) -> Int64 {
        let index = floorDivide(month, 100) * 12 + (month % 100 - 1) + months
        let year = floorDivide(index, 12)
        return days(fromYear: year, month: index - year * 12 + 1, day: 1)
    }

    /// Days since 1970-01-01 in Algiers and the second within that day.
    /// Times beyond years 1 to 9999 are clamped to them, so no input can overflow the arithmetic.
    static func localDay(_ seconds: Int64) -> (days: Int64, secondOfDay: Int64) {
        let local = min(max(seconds, -62_135_596_800), 253_402_300_799) + utcOffset
        let days = floorDivide(local, 86_400)
        return (days, local - days * 86_400)
    }

    /// The proleptic Gregorian date of a day number (H. Hinnant's `civil_from_days`).
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The day number of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
    static func days(fromYear year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : (a - b + 1) / b
    }

    // Formatting byte by byte: a reminder run formats two dates per message, tens of thousands of times.

    private static func text(_ body: (inout [UInt8]) -> Void) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(25)
        body(&out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `YYYY-MM-DD`, the separator, `hh:mm` and, if asked, `:ss`.
    private static func dateAndTime(_ seconds: Int64, separator: Unicode.Scalar, withSeconds: Bool, _ out: inout [UInt8]) {
        let (days, secondOfDay) = localDay(seconds)
        let date = civil(fromDays: days)
        digits(date.year, 4, &out)
        out.append(UInt8(ascii: "-"))
        digits(date.month, 2, &out)
        out.append(UInt8(ascii: "-"))
        digits(date.day, 2, &out)
        out.append(UInt8(ascii: separator))
        digits(secondOfDay / 3600, 2, &out)
        out.append(UInt8(ascii: ":"))
        digits(secondOfDay / 60 % 60, 2, &out)
        if withSeconds {
            out.append(UInt8(ascii: ":"))
            digits(secondOfDay % 60, 2, &out)
        }
    }

    /// `value` in decimal, zero-padded to `width` digits (wider values, and negative ones, as they are).
    private static func digits(_ value: Int64, _ width: Int, _ out: inout [UInt8]) {
        guard value >= 0 else {
            out += DecimalText.zeroPadded(value, width: width).utf8
            return
        }
        var divisor: Int64 = 1
        for _ in 1..<width { divisor *= 10 }
        while divisor * 10 <= value { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}
