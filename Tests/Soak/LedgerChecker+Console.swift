import Foundation
import PeezAPI

extension LedgerChecker {
    /// The console's sales panel over the run's days equals a rebuild from the ledger's periods: per shop (and
    /// the app), the sales live and their months and dinars, and the sales cancelled, each on its day of purchase
    /// in Algiers.
    func checkConsole(_ findings: inout Findings) {
        guard let panel = final.sales, let from = Self.day(panel.from), let to = Self.day(panel.to) else { return }
        var rebuilt: [String: FinalReads.SalesLine] = [:]
        for period in ledger.flatMap(\.periods) {
            guard let bought = Self.time(period.purchased_at), let day = Self.day(Self.dayText(bought)), day >= from, day <= to else { continue }
            let key = period.vendor_id ?? ""
            var line = rebuilt[key] ?? FinalReads.SalesLine(vendor_id: period.vendor_id, sales: 0, months: 0, amount_dzd: 0, cancelled: 0)
            if period.status == "cancelled" {
                line.cancelled += 1
            } else {
                line.sales += 1
                line.months += Int64(period.months)
                line.amount_dzd += Int64(period.amount_dzd)
            }
            rebuilt[key] = line
        }
        let shown = Dictionary(panel.shops.map { ($0.vendor_id ?? "", $0) }, uniquingKeysWith: { first, _ in first })
        for key in Set(rebuilt.keys).union(shown.keys).sorted() {
            let empty = FinalReads.SalesLine(vendor_id: key.isEmpty ? nil : key, sales: 0, months: 0, amount_dzd: 0, cancelled: 0)
            let (expected, read) = (rebuilt[key] ?? empty, shown[key] ?? empty)
            findings.expect(
                expected == read,
                "the console's summaries equal a rebuild from the ledger",
                "the sales panel \(panel.from)–\(panel.to) shows \(key.isEmpty ? "the app" : "shop \(key)") with \(Self.figures(read)); "
                    + "the ledger's periods make \(Self.figures(expected))",
                member: nil
            )
        }
    }

    static func figures(_ line: FinalReads.SalesLine) -> String {
        "\(line.sales) sale(s), \(line.months) month(s), \(line.amount_dzd) DZD, \(line.cancelled) cancelled"
    }

    /// A day (`YYYY-MM-DD`) as a number that orders days.
    static func day(_ text: String) -> Int? {
        Int(text.replacingOccurrences(of: "-", with: ""))
    }

    /// The Algiers day of a moment, `YYYY-MM-DD`.
    static func dayText(_ date: Date) -> String {
        let parts = algiers.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
}
