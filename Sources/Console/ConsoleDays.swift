import Membership
import PeezBasics

/// A range of Algiers days, both ends included, as a panel's `from` and `to` give it.
public struct ConsoleDays: Sendable, Hashable {
    public let first: Int64
    public let last: Int64

    /// The longest range a panel draws.
    public static let maxDays: Int64 = 366

    public init(first: Int64, last: Int64) {
        self.first = first
        self.last = last
    }

    /// The range `from`…`to` (`YYYY-MM-DD`); a missing end is today, a missing start 29 days before the end.
    /// A malformed day, a start after the end or more than ``maxDays`` days is `invalidFields`.
    public init(from: String?, to: String?, today: Int64) throws {
        var problems: [String: String] = [:]
        func day(_ text: String?, _ name: String) -> Int64? {
            guard let text else { return nil }
            guard text.utf8.count == 10, let start = AlgiersCalendar.startOfDay(text) else {
                problems[name] = "must be a day written YYYY-MM-DD"
                return nil
            }
            return AlgiersCalendar.dayNumber(start)
        }
        let last = day(to, "to") ?? today
        let first = day(from, "from") ?? last - 29
        if problems.isEmpty, first > last { problems["from"] = "must not be after to" }
        if problems.isEmpty, last - first + 1 > Self.maxDays { problems["from"] = "must be at most \(Self.maxDays) days before to" }
        guard problems.isEmpty else { throw MembershipError(.invalidFields, "The range of days is not valid.", fields: problems) }
        self.init(first: first, last: last)
    }

    public var days: [Int64] { Array(first...last) }
    /// The range as times: its first day's first second, and the first second after its last day.
    public var start: Int64 { first * 86_400 - AlgiersCalendar.utcOffset }
    public var end: Int64 { (last + 1) * 86_400 - AlgiersCalendar.utcOffset }
    public var fromText: String { AlgiersCalendar.dayText(first) }
    public var toText: String { AlgiersCalendar.dayText(last) }
}
