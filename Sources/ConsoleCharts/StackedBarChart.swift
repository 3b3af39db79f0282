/// Bars per day, each stacked by series (shops, outcomes): the console's sales, reminders, pushes and ends of
/// paid time. Drawn as one SVG document with a value axis, a day axis, a legend and a tooltip per segment.
public struct StackedBarChart: Sendable {
    public struct Series: Sendable {
        public var name: String
        /// One value per day, in ``StackedBarChart/days`` order.
        public var values: [Int64]

        public init(name: String, values: [Int64]) {
            self.name = name
            self.values = values
        }
    }

    /// What the chart shows, for screen readers and the tooltip of the whole.
    public var title: String
    /// The days, `YYYY-MM-DD`, left to right.
    public var days: [String]
    public var series: [Series]
    public var language: ChartLanguage
    /// Shown when every value is zero.
    public var emptyText: String
    /// The name of the series beyond the ninth, summed into one.
    public var othersName: String

    public init(title: String, days: [String], series: [Series], language: ChartLanguage, emptyText: String, othersName: String) {
        self.title = title
        self.days = days
        self.series = series
        self.language = language
        self.emptyText = emptyText
        self.othersName = othersName
    }

    static let width = 720.0
    static let plotHeight = 200.0
    static let left = 56.0
    static let right = 12.0
    static let top = 12.0

    /// The chart as an SVG document.
    public func svg() -> String {
        let shown = limitedSeries()
        let totals = days.indices.map { day in shown.reduce(Int64(0)) { $0 + max(0, day < $1.values.count ? $1.values[day] : 0) } }
        let axis = ValueAxis(maximum: totals.max() ?? 0)
        let legendRows = Legend.rows(shown.map(\.name), width: Self.width - Self.left - Self.right)
        let bottom = Self.top + Self.plotHeight
        var svg = SVGDocument(width: Self.width, height: bottom + 30 + Double(legendRows.count) * 20 + 6, label: title)
        let plotWidth = Self.width - Self.left - Self.right
        for tick in axis.ticks {
            let y = bottom - Double(tick) / Double(axis.top) * Self.plotHeight
            svg.line(x1: Self.left, y1: y, x2: Self.width - Self.right, y2: y, stroke: tick == 0 ? "#666" : "#ddd")
            svg.text(language.integer(tick), x: Self.left - 6, y: y + 4, anchor: "end", size: 11)
        }
        let slot = plotWidth / Double(max(days.count, 1))
        let barWidth = max(1, slot * 0.78)
        let labelEvery = max(1, Int((44 / slot).rounded(.up)))
        for (index, day) in days.enumerated() {
            let x = Self.left + Double(index) * slot + (slot - barWidth) / 2
            var y = bottom
            for (number, series) in shown.enumerated() {
                let value = index < series.values.count ? max(0, series.values[index]) : 0
                guard value > 0 else { continue }
                let height = Double(value) / Double(axis.top) * Self.plotHeight
                y -= height
                svg.rect(
                    x: x,
                    y: y,
                    width: barWidth,
                    height: height,
                    fill: Palette.color(number),
                    title: "\(language.dayAndMonth(day)) · \(series.name): \(language.integer(value))"
                )
            }
            if index % labelEvery == 0 {
                svg.text(language.dayAndMonth(day), x: x + barWidth / 2, y: bottom + 16, anchor: "middle", size: 11)
            }
        }
        if totals.allSatisfy({ $0 == 0 }) {
            svg.text(emptyText, x: Self.left + plotWidth / 2, y: Self.top + Self.plotHeight / 2, anchor: "middle", size: 14, fill: "#777")
        }
        Legend.draw(legendRows, names: shown.map(\.name), top: bottom + 30, left: Self.left, into: &svg)
        return svg.document
    }

    /// The nine largest series, the others summed into one.
    func limitedSeries() -> [Series] {
        guard series.count > 10 else { return series }
        let ranked = series.sorted { $0.values.reduce(0, +) > $1.values.reduce(0, +) }
        let others = ranked.dropFirst(9)
        let summed = days.indices.map { day in others.reduce(Int64(0)) { $0 + (day < $1.values.count ? $1.values[day] : 0) } }
        return Array(ranked.prefix(9)) + [Series(name: othersName, values: summed)]
    }
}

/// A value axis from zero to a round number past the maximum, with four or five round ticks.
struct ValueAxis {
    let top: Int64
    let ticks: [Int64]

    init(maximum: Int64) {
        guard maximum > 0 else {
            top = 1
            ticks = [0]
            return
        }
        var step: Int64 = 1
        let steps: [Int64] = [1, 2, 5]
        var magnitude: Int64 = 1
        search: while true {
            for base in steps where base * magnitude * 5 >= maximum {
                step = base * magnitude
                break search
            }
            magnitude *= 10
        }
        let count = (maximum + step - 1) / step
        top = count * step
        ticks = (0...count).map { $0 * step }
    }
}

/// Series colours: Tableau's ten, told apart by most colour-blind readers, dark enough for white text.
enum Palette {
    static let colors = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"]

    static func color(_ index: Int) -> String { colors[index % colors.count] }
}

/// A legend: a swatch and a name per series, in rows that fit the width.
enum Legend {
    /// The series indexes of each row.
    static func rows(_ names: [String], width: Double) -> [[Int]] {
        var rows: [[Int]] = []
        var current: [Int] = []
        var used = 0.0
        for (index, name) in names.enumerated() {
            let needed = 24 + Double(min(name.count, 40)) * 7
            if used + needed > width, !current.isEmpty {
                rows.append(current)
                current = []
                used = 0
            }
            current.append(index)
            used += needed
        }
        if !current.isEmpty { rows.append(current) }
        return rows
    }

    static func draw(_ rows: [[Int]], names: [String], top: Double, left: Double, into svg: inout SVGDocument) {
        for (row, indexes) in rows.enumerated() {
            var x = left
            let y = top + Double(row) * 20
            for index in indexes {
                let name = names[index].count > 40 ? String(names[index].prefix(39)) + "…" : names[index]
                svg.rect(x: x, y: y - 10, width: 12, height: 12, fill: Palette.color(index))
                svg.text(name, x: x + 16, y: y, size: 12)
                x += 24 + Double(name.count) * 7
            }
        }
    }
}
