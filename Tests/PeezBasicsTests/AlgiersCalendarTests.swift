import Foundation
import PeezBasics
import Testing

/// The integer calendar must agree with Foundation's Africa/Algiers calendar everywhere the service uses it.
@Suite("Algiers calendar")
struct AlgiersCalendarTests {
    static let zone = TimeZone(identifier: "Africa/Algiers")!
    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }()

    /// Random instants from 1990 to 2100, with a fixed seed, plus month ends and leap days.
    static let instants: [Int64] = {
        var state: UInt64 = 0x0A16_1E25
        var values: [Int64] = [1_769_850_000, 1_830_290_400, 951_778_800, 4_107_538_799]
        for _ in 0..<4_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            values.append(631_152_000 + Int64(state >> 33) % (4_102_444_800 - 631_152_000))
        }
        return values
    }()

    @Test func algiersHasNoDaylightSavingInTheServiceRange() {
        #expect(Self.instants.allSatisfy { Self.zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval($0))) == 3600 })
    }

    @Test func iso8601MatchesFoundation() {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = Self.zone
        for instant in Self.instants {
            #expect(AlgiersCalendar.iso8601(instant) == formatter.string(from: Date(timeIntervalSince1970: TimeInterval(instant))), "\(instant)")
        }
    }

    @Test func dayStampMatchesFoundation() {
        for instant in Self.instants {
            let parts = Self.calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: TimeInterval(instant)))
            #expect(AlgiersCalendar.dayStamp(instant) == String(format: "%04d%02d%02d", parts.year!, parts.month!, parts.day!))
        }
    }

    @Test func monthsOfDaysAndTheirFirstDaysMatchFoundation() {
        for instant in Self.instants {
            let date = Date(timeIntervalSince1970: TimeInterval(instant))
            let parts = Self.calendar.dateComponents([.year, .month], from: date)
            let month = Int64(parts.year! * 100 + parts.month!)
            let day = AlgiersCalendar.dayNumber(instant)
            #expect(AlgiersCalendar.month(ofDay: day) == month, "\(instant)")
            let shift = Int64(instant % 25) - 12
            let first = Self.calendar.date(byAdding: .month, value: Int(shift), to: Self.calendar.date(from: parts)!)!
            #expect(
                AlgiersCalendar.firstDay(ofMonth: month, adding: shift) == AlgiersCalendar.dayNumber(Int64(first.timeIntervalSince1970)),
                "\(instant) \(shift)"
            )
        }
    }

    @Test func addingMonthsMatchesFoundationsClampedArithmetic() {
        for instant in Self.instants.prefix(1_500) {
            for months in 1...3 {
                let expected = Self.calendar.date(byAdding: .month, value: months, to: Date(timeIntervalSince1970: TimeInterval(instant)))!
                #expect(AlgiersCalendar.adding(months: months, to: instant) == Int64(expected.timeIntervalSince1970), "\(instant) + \(months)")
            }
        }
    }

    @Test func minuteStampAndStartOfDayMatchFoundation() {
        let minute = DateFormatter()
        minute.locale = Locale(identifier: "en_US_POSIX")
        minute.timeZone = Self.zone
        minute.dateFormat = "yyyy-MM-dd HH:mm"
        let day = DateFormatter()
        day.locale = Locale(identifier: "en_US_POSIX")
        day.timeZone = Self.zone
        day.dateFormat = "yyyy-MM-dd"
        for instant in Self.instants {
            let date = Date(timeIntervalSince1970: TimeInterval(instant))
            #expect(AlgiersCalendar.minuteStamp(instant) == minute.string(from: date), "\(instant)")
            let text = day.string(from: date)
            #expect(AlgiersCalendar.startOfDay(text) == Int64(Self.calendar.startOfDay(for: date).timeIntervalSince1970), "\(text)")
        }
    }

    @Test func startOfDayRefusesWhatIsNotARealDate() {
        for text in ["2026-02-29", "2026-13-01", "2026-00-10", "2026-1-01", "2026-01-1", "26-01-01", "2026/01/01", "2026-01-01 ", "２０２６-01-01", ""] {
            #expect(AlgiersCalendar.startOfDay(text) == nil, "\(text.debugDescription)")
        }
        #expect(AlgiersCalendar.startOfDay("2028-02-29") != nil)
    }
}
