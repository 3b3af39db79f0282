public import ConsoleCharts
import Membership
public import PeezAPI
import PeezBasics

extension ConsoleService {
    /// Online payments over the range: by status (as each stands now) with their dinars, what was paid, how many
    /// the reconciler has still to settle, the gateway's words that need the team (newest first), and a chart of
    /// each day's payments by status.
    public func payments(_ range: ConsoleDays, _ language: ChartLanguage) async throws -> PaymentsPanelBody {
        let days = try await store.paymentDays(from: range.first, to: range.last)
        var totals: [PaymentStatus: (count: Int64, dzd: Int64)] = [:]
        var series: [PaymentStatus: [Int64]] = [:]
        for row in days {
            totals[row.status, default: (0, 0)].count += row.count
            totals[row.status, default: (0, 0)].dzd += row.dzd
            series[row.status, default: Array(repeating: 0, count: range.days.count)][Int(row.day - range.first)] += row.count
        }
        let statuses = PaymentStatus.allCases.filter { totals[$0] != nil }
        return PaymentsPanelBody(
            from: range.fromText,
            to: range.toText,
            by_status: statuses.map { .init(status: $0.rawValue, count: totals[$0]!.count, dzd: totals[$0]!.dzd) },
            paid: totals[.paid]?.count ?? 0,
            paid_dzd: totals[.paid]?.dzd ?? 0,
            unsettled: Int64(try await store.unsettledPayments()),
            attention: try await store.paymentEvents(needingAttention: true, checkoutID: nil, limit: 20).map(PaymentEventBody.init),
            chart: StackedBarChart(
                title: texts.text("chart.payments", language),
                days: range.days.map(AlgiersCalendar.dayText),
                series: statuses.map { .init(name: texts.text("payment." + $0.rawValue, language), values: series[$0]!) },
                language: language,
                emptyText: texts.text("chart.empty", language),
                othersName: texts.text("chart.others", language)
            ).svg()
        )
    }
}

/// `GET /console/api/payments`.
public struct PaymentsPanelBody: Codable, Sendable {
    public struct StatusCount: Codable, Sendable, Equatable {
        public var status: String
        public var count: Int64
        public var dzd: Int64
    }

    public var from: String
    public var to: String
    /// The range's payments by status as each stands now.
    public var by_status: [StatusCount]
    public var paid: Int64
    public var paid_dzd: Int64
    /// Payments the reconciler has still to settle (whenever made).
    public var unsettled: Int64
    /// The latest words from the gateway that sold nothing and need the team (whenever said).
    public var attention: [PaymentEventBody]
    public var chart: String
}
