public import CardServices
public import ConsoleCharts
import Foundation
import Membership
public import PeezAPI
import PeezBasics

extension ConsoleService {
    /// The shops' cash: every shop's balance, since when it owes, whether past the team's limit, the total owed, and
    /// a chart of each shop's balance at the end of each day of the range.
    public func accounts(_ range: ConsoleDays, _ language: ChartLanguage) async throws -> AccountsPanelBody {
        let limit = try await store.balanceLimit()
        let vendors = Dictionary(uniqueKeysWithValues: try await store.vendors().map { ($0.id, $0) })
        let balances = try await store.shopBalances().compactMap { balance in vendors[balance.vendorID].map { (balance, $0) } }
            .sorted { ($0.0.balanceDZD, $1.1.name) > ($1.0.balanceDZD, $0.1.name) }
        let history = try await store.shopBalanceHistory(from: range.first, to: range.last, owingMost: BalanceChart.shopsDrawn)
        let chartShops = history.compactMap { vendorID, moves -> BalanceChart.Shop? in
            guard let vendor = vendors[vendorID] else { return nil }
            var balances: [Int64] = []
            var next = moves.makeIterator()
            var move = next.next()
            var balance: Int64 = 0
            for day in range.days {
                while let current = move, current.day <= day {
                    balance = current.balanceDZD
                    move = next.next()
                }
                balances.append(balance)
            }
            return BalanceChart.Shop(name: vendor.name, balances: balances)
        }
        return AccountsPanelBody(
            from: range.fromText,
            to: range.toText,
            limit_dzd: limit,
            total_owed_dzd: balances.reduce(0) { $0 + $1.0.balanceDZD },
            over_limit: Int64(limit.map { limit in balances.filter { $0.0.balanceDZD > limit }.count } ?? 0),
            shops: balances.map { ShopBalanceBody($0.0, vendor: $0.1, today: today, limit: limit) },
            chart: BalanceChart(
                title: texts.text("chart.accounts", language),
                days: range.days.map(AlgiersCalendar.dayText),
                shops: chartShops,
                limit: limit,
                limitName: texts.text("accounts.limit", language),
                language: language,
                emptyText: texts.text("chart.empty", language)
            ).svg()
        )
    }
}

/// `PUT /console/api/accounts/limit`: the team's limit set from the console, as `PUT /v1/accounts/limit` sets it.
extension ConsoleService {
    public func setBalanceLimit(_ body: BalanceLimitRequest, by actor: AuditActor) async throws -> BalanceLimitBody {
        try await ShopAccountService(store: store, now: now).setBalanceLimit(body, by: actor)
    }
}

/// `GET /console/api/accounts`.
public struct AccountsPanelBody: Codable, Sendable {
    public var from: String
    public var to: String
    public var limit_dzd: Int64?
    public var total_owed_dzd: Int64
    /// How many shops owe more than the limit.
    public var over_limit: Int64
    /// Largest balance first.
    public var shops: [ShopBalanceBody]
    public var chart: String
}
