public import ConsoleCharts
import Membership
import PeezBasics

extension ConsoleService {
    /// The subscription figures over the range's days up to today (Docs/console.md, "Subscription figures"):
    /// monthly recurring revenue and what moved it, churn over the grace window, the cohorts of the last twelve
    /// months, the mix of lengths sold, what reminders brought back; one query over the summary.
    public func subscriptions(_ range: ConsoleDays, _ language: ChartLanguage) async throws -> SubscriptionsPanelBody {
        let panel = SubscriptionFiguresPanel(range: range, today: today)
        let (before, rows) = try await store.subscriptionDays(from: panel.readFrom, to: panel.last)
        var (body, revenue) = panel.body(before: before, rows: rows)
        body.chart = StackedBarChart(
            title: texts.text("chart.revenue", language),
            days: (panel.first...panel.last).map(AlgiersCalendar.dayText),
            series: [.init(name: texts.text("chart.revenue_dzd", language), values: revenue)],
            language: language,
            emptyText: texts.text("chart.empty", language),
            othersName: texts.text("chart.others", language)
        ).svg()
        return body
    }
}
