import PeezBasics

/// One member's coverage as a timeline: the paid periods as bars (a cancelled one pale), and below them one
/// lane per kind of event (sales, cancellations, card revocations, device keys, Wallet, scans), on a time axis
/// marked at each month, with today's line.
public struct CoverageTimeline: Sendable {
    public struct Period: Sendable {
        public var start: Int64
        public var end: Int64
        public var label: String
        public var cancelled: Bool

        public init(start: Int64, end: Int64, label: String, cancelled: Bool) {
            self.start = start
            self.end = end
            self.label = label
            self.cancelled = cancelled
        }
    }

    /// An event's lane.
    public enum Lane: Int, Sendable, CaseIterable {
        case sale, cancellation, revocation, deviceKey, wallet, scan
    }

    public struct Event: Sendable {
        public var at: Int64
        public var lane: Lane
        public var label: String

        public init(at: Int64, lane: Lane, label: String) {
            self.at = at
            self.lane = lane
            self.label = label
        }
    }

    public var title: String
    public var periods: [Period]
    public var events: [Event]
    public var now: Int64
    public var language: ChartLanguage
    /// The name of the periods' lane and of each event lane.
    public var periodsName: String
    public var laneNames: [Lane: String]
    public var todayName: String

    public init(
        title: String,
        periods: [Period],
        events: [Event],
        now: Int64,
        language: ChartLanguage,
        periodsName: String,
        laneNames: [Lane: String],
        todayName: String
    ) {
        self.title = title
        self.periods = periods
        self.events = events
        self.now = now
        self.language = language
        self.periodsName = periodsName
        self.laneNames = laneNames
        self.todayName = todayName
    }

    static let width = 720.0
    static let left = 130.0
    static let right = 14.0
    static let laneHeight = 20.0
    static let colors: [Lane: String] = [
        .sale: "#59a14f", .cancellation: "#e15759", .revocation: "#b3131b", .deviceKey: "#4e79a7", .wallet: "#b07aa1", .scan: "#9c755f",
    ]

    public func svg() -> String {
        let times = periods.flatMap { [$0.start, $0.end] } + events.map(\.at) + [now]
        let first = AlgiersCalendar.dayNumber(times.min()!) - 3
        let last = AlgiersCalendar.dayNumber(times.max()!) + 4
        let span = Double(max(last - first, 1))
        let plotWidth = Self.width - Self.left - Self.right
        func x(_ time: Int64) -> Double {
            Self.left + (Double(time - first * 86_400 + AlgiersCalendar.utcOffset) / 86_400 - 0) / span * plotWidth
        }
        let lanes = Lane.allCases
        let top = 24.0
        let bottom = top + 28 + Double(lanes.count) * Self.laneHeight
        var svg = SVGDocument(width: Self.width, height: bottom + 8, label: title)
        // Month marks: the first of each month in Algiers.
        let monthEvery = max(1, Int((span / 30 / 8).rounded(.up)))
        var month = 0
        for day in first...last {
            let text = AlgiersCalendar.dayText(day)
            guard text.hasSuffix("-01") else { continue }
            defer { month += 1 }
            guard month % monthEvery == 0 else { continue }
            let position = x(day * 86_400 - AlgiersCalendar.utcOffset)
            svg.line(x1: position, y1: top - 6, x2: position, y2: bottom, stroke: "#e3e3e3")
            let parts = text.split(separator: "-")
            svg.text("\(parts[1])/\(parts[0])", x: position + 3, y: top - 10, size: 10, fill: "#666")
        }
        svg.text(periodsName, x: Self.left - 8, y: top + 15, anchor: "end", size: 12, weight: "600")
        for period in periods {
            svg.rect(
                x: x(period.start),
                y: top,
                width: x(period.end) - x(period.start),
                height: 22,
                fill: period.cancelled ? "#d6d6d6" : "#0b6e4f",
                title: period.label
            )
        }
        for (row, lane) in lanes.enumerated() {
            let y = top + 40 + Double(row) * Self.laneHeight
            svg.line(x1: Self.left, y1: y, x2: Self.width - Self.right, y2: y, stroke: "#f0f0f0")
            svg.text(laneNames[lane] ?? "", x: Self.left - 8, y: y + 4, anchor: "end", size: 11)
            for event in events where event.lane == lane {
                svg.circle(cx: x(event.at), cy: y, r: lane == .scan ? 3 : 5, fill: Self.colors[lane]!, title: event.label)
            }
        }
        let today = x(now)
        svg.line(x1: today, y1: top - 4, x2: today, y2: bottom, stroke: "#111", width: 1.2, dashed: true)
        svg.text(todayName, x: today, y: bottom + 6, anchor: "middle", size: 10, weight: "600")
        return svg.document
    }
}
