import ConsoleCharts
import Foundation
import FoundationXML
import Testing

/// The charts are SVG documents any XML reader takes whatever names they carry, with figures written as each
/// language writes them.
@Suite("Console charts")
struct ConsoleChartTests {
    /// Parses `svg` as XML; the elements' names in document order.
    static func elements(_ svg: String) throws -> [String] {
        final class Collector: NSObject, XMLParserDelegate {
            var names: [String] = []
            func parser(
                _ parser: XMLParser,
                didStartElement name: String,
                namespaceURI: String?,
                qualifiedName: String?,
                attributes: [String: String] = [:]
            ) {
                names.append(name)
            }
        }
        let parser = XMLParser(data: Data(svg.utf8))
        let collector = Collector()
        parser.delegate = collector
        #expect(parser.parse(), "not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "")")
        return collector.names
    }

    static let hostile = "<script>alert(1)</script>\" onload=\"x' & \u{0}\u{1}"

    @Test func aShopsNameIsTextNeverMarkupWhateverItHolds() throws {
        let chart = StackedBarChart(
            title: Self.hostile,
            days: ["2026-11-24", "2026-11-25"],
            series: [.init(name: Self.hostile, values: [3, 5]), .init(name: "Boulangerie", values: [1, 0])],
            language: .fr,
            emptyText: "rien",
            othersName: "autres"
        )
        let names = try Self.elements(chart.svg())
        #expect(!names.contains("script"))
        #expect(names.first == "svg" && names.filter { $0 == "rect" }.count >= 3)
        #expect(!chart.svg().contains("onload=\""))
    }

    @Test func aTimelineIsWellFormedAndShowsEachEventWithItsLabel() throws {
        let timeline = CoverageTimeline(
            title: "Coverage",
            periods: [.init(start: 1_790_000_000, end: 1_792_600_000, label: "a & b", cancelled: false)],
            events: [.init(at: 1_790_000_000, lane: .sale, label: Self.hostile), .init(at: 1_791_000_000, lane: .revocation, label: "revoked")],
            now: 1_791_500_000,
            language: .ar,
            periodsName: "المدة المدفوعة",
            laneNames: [.sale: "المبيعات"],
            todayName: "اليوم"
        )
        let svg = timeline.svg()
        let names = try Self.elements(svg)
        #expect(names.filter { $0 == "circle" }.count == 2 && !names.contains("script"))
        #expect(svg.contains("المدة المدفوعة") && svg.contains("a &amp; b"))
    }

    /// A month's mark at the right edge (the timeline ends on the 1st) and today's name beside it: drawn by librsvg,
    /// no letter lies past either edge, in any language.
    @Test(arguments: [(ChartLanguage.en, "Today"), (.fr, "Aujourd'hui"), (.ar, "اليوم")])
    func aTimelinesLabelsStayInsideItsEdges(language: ChartLanguage, today: String) throws {
        // 2027-01-28 12:00 in Algiers: the timeline runs to 2027-02-01, whose mark is at its right edge.
        let end: Int64 = 1_801_134_000
        let timeline = CoverageTimeline(
            title: "Coverage",
            periods: [.init(start: end - 200 * 86_400, end: end, label: "p", cancelled: false)],
            events: [.init(at: end, lane: .sale, label: "sale")],
            now: end,
            language: language,
            periodsName: "Paid",
            laneNames: [:],
            todayName: today
        )
        let svg = timeline.svg()
        #expect(svg.contains(">02/2027</text>"))
        let ink = try #require(try SVGInk.columns(svg))
        #expect(ink.lowerBound >= 0 && ink.upperBound < 720, "ink from column \(ink.lowerBound) to \(ink.upperBound) of 0..<720")
    }

    @Test(arguments: [
        (ChartLanguage.en, Int64(1_234_567), "1,234,567"), (.fr, 1_234_567, "1\u{202F}234\u{202F}567"), (.ar, 1_234_567, "1.234.567"),
        (.en, 999, "999"), (.fr, 0, "0"), (.ar, -12_000, "-12.000"),
    ])
    func wholeNumbersAreGroupedAsEachLanguageWritesThem(language: ChartLanguage, value: Int64, text: String) {
        #expect(language.integer(value) == text)
    }

    @Test func anEmptyChartSaysSoAndHasARoundAxis() throws {
        let chart = StackedBarChart(title: "t", days: ["2026-11-25"], series: [], language: .en, emptyText: "Nothing here", othersName: "o")
        #expect(chart.svg().contains(">Nothing here</text>"))
        let many = StackedBarChart(
            title: "t",
            days: ["2026-11-25"],
            series: (0..<14).map { .init(name: "shop \($0)", values: [Int64($0)]) },
            language: .en,
            emptyText: "",
            othersName: "Others"
        )
        // Ten series at most: the nine biggest and the rest summed.
        let svg = many.svg()
        #expect(svg.contains(">Others</text>") && svg.contains(">shop 13</text>") && !svg.contains(">shop 4</text>"))
    }
}
