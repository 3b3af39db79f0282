import Foundation
import PeezAPI

extension LedgerChecker {
    /// A shop's figures on one day, as the checker rebuilds them and as a statement line reads.
    struct AccountDay: Equatable, CustomStringConvertible {
        var sales: Int64 = 0, salesDZD: Int64 = 0, cancellations: Int64 = 0, cancellationsDZD: Int64 = 0, remittedDZD: Int64 = 0

        var description: String {
            "\(sales) sale(s) \(salesDZD) DZD, \(cancellations) cancelled \(cancellationsDZD) DZD, \(remittedDZD) DZD remitted"
        }
    }

    /// Every shop's balance equals its entries, and its entries equal the ledger: each sale at the shop has one sale
    /// entry (and, cancelled, one cancellation entry), each remittance answered is one entry, one whose answer was
    /// lost at most one; each statement line (a day's sales, cancellations and remittances) equals a rebuild from the
    /// ledger's periods and the remittance entries, and its closing balance is the sum of every entry.
    func checkAccounts(_ findings: inout Findings) {
        guard let accounts = final.accounts else { return }
        let periods = ledger.flatMap(\.periods)
        for (shop, account) in accounts.sorted(by: { $0.key < $1.key }) {
            let entries = account.entries
            let total = entries.reduce(Int64(0)) { $0 + $1.balance_change_dzd }
            findings.expect(
                account.statement.closing_balance_dzd == total && account.statement.opening_balance_dzd == 0,
                "every shop balance equals its entries",
                "shop \(shop)'s statement opens at \(account.statement.opening_balance_dzd) and closes at \(account.statement.closing_balance_dzd) "
                    + "DZD; its \(entries.count) entries sum to \(total) DZD",
                member: nil
            )
            var expected: [String: AccountDay] = [:]
            for period in periods where period.vendor_id == shop {
                let sales = entries.filter { $0.period_id == period.id && $0.kind == "sale" }.count
                let cancellations = entries.filter { $0.period_id == period.id && $0.kind == "cancellation" }.count
                findings.expect(
                    sales == 1 && cancellations == (period.cancelled_at == nil ? 0 : 1),
                    "every sale at a shop is in its account once",
                    "period \(period.id) (\(period.months) month(s) at shop \(shop)\(period.cancelled_at == nil ? "" : ", cancelled")) has "
                        + "\(sales) sale entr(ies) and \(cancellations) cancellation entr(ies)",
                    member: period.member_uuid
                )
                if let bought = Self.time(period.purchased_at) {
                    expected[Self.dayText(bought), default: AccountDay()].sales += 1
                    expected[Self.dayText(bought), default: AccountDay()].salesDZD += Int64(period.amount_dzd)
                }
                if let cancelled = period.cancelled_at.flatMap(Self.time) {
                    expected[Self.dayText(cancelled), default: AccountDay()].cancellations += 1
                    expected[Self.dayText(cancelled), default: AccountDay()].cancellationsDZD += Int64(period.amount_dzd)
                }
            }
            for entry in entries where entry.kind == "remittance" { expected[entry.date, default: AccountDay()].remittedDZD -= entry.amount_dzd }
            let read = Dictionary(
                account.statement.days.map { day in
                    let f = day.figures
                    return (
                        day.date,
                        AccountDay(
                            sales: f.sales,
                            salesDZD: f.sales_dzd,
                            cancellations: f.cancellations,
                            cancellationsDZD: f.cancellations_dzd,
                            remittedDZD: f.remitted_dzd
                        )
                    )
                },
                uniquingKeysWith: { first, _ in first }
            )
            for day in Set(expected.keys).union(read.keys).sorted() {
                findings.expect(
                    read[day] == expected[day],
                    "every shop balance equals its entries",
                    "shop \(shop)'s statement line of \(day) reads \(read[day]?.description ?? "nothing"); the ledger makes "
                        + "\(expected[day]?.description ?? "nothing")",
                    member: nil
                )
            }
            let remittances = history.filter { $0.kind == .remittance && $0.vendor == shop }
            let answered = remittances.filter { $0.outcome == .ok }
            let lost = remittances.filter { $0.outcome == .unknown }.count
            let recorded = entries.filter { $0.kind == "remittance" }
            let answeredEntries = Set(answered.compactMap(\.detail))
            findings.expect(
                answeredEntries.count == answered.count && answeredEntries.isSubset(of: Set(recorded.map { String($0.seq) }))
                    && recorded.count <= answered.count + lost,
                "a remittance answered is recorded once, one lost at most once",
                "shop \(shop): \(answered.count) remittance(s) answered (entries \(answeredEntries.sorted().joined(separator: ", "))) and \(lost) "
                    + "lost; its account holds \(recorded.count): \(recorded.map { "\($0.seq)" }.joined(separator: ", "))",
                member: nil
            )
        }
    }
}
