public import ConsoleCharts
import Foundation
public import Membership
import PeezBasics

/// A shop's statement as A4 pages (SVG documents) in English, French or Arabic, laid out as the daily report is
/// (``ReportLayout``): the period's summary from opening to closing balance, the days' table (continued over pages),
/// then each remittance, adjustment and reversal with what the team wrote of it. `ReportPDF` makes the PDF.
public enum ShopStatementPages {
    public static func pages(_ statement: ShopStatement, language: ChartLanguage, texts: ConsoleTexts, madeAt: Int64) -> [String] {
        func t(_ key: String, _ values: [String: String] = [:]) -> String { texts.text(key, language, values) }
        func money(_ value: Int64) -> String { t("money", ["amount": language.integer(value)]) }
        func date(_ day: Int64) -> String { AlgiersCalendar.dayText(day) }
        var layout = ReportLayout(rightToLeft: language == .ar, continued: t("report.continued"))
        layout.title(t("statement.title", ["shop": statement.vendor.name]))
        // Dates and times stand in cells of their own: in a line of Arabic text they would be reordered.
        layout.paragraph(t("statement.period"), size: 10)

        let totals = statement.totals
        layout.section(t("statement.summary"), following: 100)
        layout.table(
            title: t("statement.summary"),
            header: ["", t("statement.amount")],
            columns: [0.7, 0.3],
            rows: [
                [t("statement.from"), date(statement.fromDay)],
                [t("statement.to"), date(statement.toDay)],
                [t("statement.made"), AlgiersCalendar.minuteStamp(madeAt)],
                [t("statement.opening"), money(statement.openingDZD)],
                [t("statement.gross"), money(totals.grossDZD)],
                [t("statement.commission"), money(-totals.commissionDZD)],
                [t("statement.net"), money(totals.grossDZD - totals.commissionDZD)],
                [t("statement.remitted"), money(-totals.remittedDZD)],
                [t("statement.adjusted"), money(totals.adjustedDZD)],
                [t("statement.closing"), money(statement.closingDZD)],
            ],
            emphasised: [9]
        )

        layout.section(t("statement.days"))
        if statement.days.isEmpty {
            layout.paragraph(t("statement.none"), size: 10)
        } else {
            let number = { (value: Int64) in language.integer(value) }
            layout.table(
                title: t("statement.days"),
                header: [
                    t("statement.day"), t("statement.sales"), t("statement.cancellations"), t("statement.commission_short"),
                    t("statement.remitted_short"), t("statement.adjusted_short"), t("statement.balance"),
                ],
                columns: [0.15, 0.15, 0.13, 0.15, 0.13, 0.13, 0.16],
                rows: statement.days.map { day in
                    let f = day.figures
                    return [
                        date(f.day), "\(number(f.sales)) · \(number(f.salesDZD))",
                        "\(number(f.cancellations)) · \(number(f.cancellationsDZD))", number(f.commissionDZD), number(f.remittedDZD),
                        number(f.adjustedDZD), number(day.closingDZD),
                    ]
                }
            )
        }

        if !statement.teamEntries.isEmpty {
            layout.section(t("statement.entries"))
            layout.table(
                title: t("statement.entries"),
                header: [t("statement.entry"), t("statement.day"), t("statement.kind"), t("statement.amount"), t("statement.detail")],
                columns: [0.12, 0.16, 0.17, 0.16, 0.39],
                rows: statement.teamEntries.map { entry in
                    [
                        String(entry.seq), date(entry.day), t("statement.kind.\(entry.kind.rawValue)"),
                        money(entry.amountDZD), detail(of: entry, t),
                    ]
                }
            )
        }
        return layout.pages { page, count in t("report.page", ["page": String(page), "pages": String(count)]) }
    }

    private static func detail(of entry: ShopEntry, _ t: (String, [String: String]) -> String) -> String {
        var parts: [String] = []
        if let method = entry.method {
            parts.append(t("statement.received", ["method": t("statement.method.\(method.rawValue)", [:]), "who": entry.receivedBy ?? ""]))
        }
        if let reference = entry.reference, !reference.isEmpty { parts.append(t("statement.reference", ["reference": reference])) }
        if let reverses = entry.reverses { parts.append(t("statement.reverses", ["entry": String(reverses)])) }
        if let reason = entry.reason { parts.append(reason) }
        return parts.joined(separator: "; ")
    }
}
