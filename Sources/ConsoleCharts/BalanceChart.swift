/// What shops owe over a run of days: one step line per shop (the balance at the end of each day), the team's
/// limit as a dashed line, a day axis and a legend. The nine largest balances at the end are drawn, each named.
public struct BalanceChart: Sendable {
    public struct Shop: Sendable {
        public var name: String
        /// The balance at the end of each day, in ``BalanceChart/days`` order.
        public var balances: [Int64]

        public init(name: String, balances: [Int64]) {
            self.name = name
            self.balances = balances
        }
    }

    public var title: String
    /// The days, `YYYY-MM-DD`, left to right.
    public var days: [String]
    public var shops: [Shop]
    /// The limit the team set, drawn when given.
    public var limit: Int64?
    public var limitName: String
    public var language: ChartLanguage
    public var emptyText: String

    public init(
        title: String,
        days: [String],
        shops: [Shop],
        limit: Int64?,
        limitName: String,
        language: ChartLanguage,
        emptyText: String
    ) {
        self.title = title
        self.days = days
        self.shops = shops
        self.limit = limit
        self.limitName = limitName
        self.language = language
        self.emptyText = emptyText
    }

    /// The chart as an SVG document. Balances below zero (PEEZ owing a shop) are drawn at zero; their tooltips say
    /// the figure.
    /// The shops drawn: those owing most at the end of the range.
    public static let shopsDrawn = 9

    public func svg() -> String {
        let width = StackedBarChart.width
        let (left, right, top, plotHeight) = (StackedBarChart.left, StackedBarChart.right, StackedBarChart.top, StackedBarChart.plotHeight)
        let shown = Array(shops.sorted { ($0.balances.last ?? 0) > ($1.balances.last ?? 0) }.prefix(Self.shopsDrawn))
        let highest = max(shown.flatMap(\.balances).max() ?? 0, limit ?? 0)
        let axis = ValueAxis(maximum: highest)
        let legendRows = Legend.rows(shown.map(\.name), width: width - left - right)
        let bottom = top + plotHeight
        var svg = SVGDocument(width: width, height: bottom + 30 + Double(legendRows.count) * 20 + 6, label: title)
        let plotWidth = width - left - right
        let y = { (value: Int64) in bottom - Double(max(0, value)) / Double(axis.top) * plotHeight }
        for tick in axis.ticks {
            svg.line(x1: left, y1: y(tick), x2: width - right, y2: y(tick), stroke: tick == 0 ? "#666" : "#ddd")
            svg.text(language.integer(tick), x: left - 6, y: y(tick) + 4, anchor: "end", size: 11)
        }
        let slot = plotWidth / Double(max(days.count, 1))
        let labelEvery = max(1, Int((44 / slot).rounded(.up)))
        for (index, day) in days.enumerated() where index % labelEvery == 0 {
            svg.text(language.dayAndMonth(day), x: left + (Double(index) + 0.5) * slot, y: bottom + 16, anchor: "middle", size: 11)
        }
        if let limit {
            svg.line(x1: left, y1: y(limit), x2: width - right, y2: y(limit), stroke: "#c0392b", width: 1.5, dashed: true)
            svg.text("\(limitName) \(language.integer(limit))", x: width - right, y: y(limit) - 4, anchor: "end", size: 11, fill: "#c0392b")
        }
        for (number, shop) in shown.enumerated() {
            var points: [(x: Double, y: Double)] = []
            for (index, balance) in shop.balances.enumerated() {
                let x = left + Double(index) * slot
                if let previous = points.last { points.append((x, previous.y)) }
                points.append((x, y(balance)))
                points.append((x + slot, y(balance)))
            }
            svg.polyline(points, stroke: Palette.color(number), title: "\(shop.name): \(language.integer(shop.balances.last ?? 0))")
        }
        if shown.isEmpty {
            svg.text(emptyText, x: left + plotWidth / 2, y: top + plotHeight / 2, anchor: "middle", size: 14, fill: "#777")
        }
        Legend.draw(legendRows, names: shown.map(\.name), top: bottom + 30, left: left, into: &svg)
        return svg.document
    }
}
