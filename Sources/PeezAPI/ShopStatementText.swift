import Foundation
public import Membership
import PeezBasics

/// A shop's statement as text an accountant loads: CSV (RFC 4180) and plain-text accounting journals for hledger
/// and beancount, each balanced and closing on the statement's balance (the journals assert it, so the tool that
/// loads one checks it).
public enum ShopStatementText {
    // MARK: CSV

    /// The CSV header.
    public static let csvColumns = [
        "date", "line", "entry", "sales", "sales_dzd", "cancellations", "cancellations_dzd", "commission_dzd", "remitted_dzd",
        "adjusted_dzd", "balance_dzd", "method", "reference", "received_by", "reason", "reverses",
    ]

    /// The statement as CSV: a header, the opening balance, each day's figures with the balance at its end, each of
    /// the team's entries after its day (`remittance`, `adjustment`, `reversal`, whose amounts the day's line
    /// already counts), and the period's totals with the closing balance. Lines end with CRLF; text a person typed
    /// that a spreadsheet would read as a formula is written with a leading apostrophe.
    public static func csv(_ statement: ShopStatement) -> String {
        var lines = [csvColumns]
        let blank = { (count: Int) in Array(repeating: "", count: count) }
        lines.append([AlgiersCalendar.dayText(statement.fromDay), "opening", ""] + blank(7) + [String(statement.openingDZD)] + blank(5))
        let entriesByDay = Dictionary(grouping: statement.teamEntries, by: \.day)
        for day in statement.days {
            lines.append([AlgiersCalendar.dayText(day.figures.day), "day", ""] + figures(day.figures) + [String(day.closingDZD)] + blank(5))
            for entry in entriesByDay[day.figures.day] ?? [] {
                let amount = entry.kind == .remittance ? -entry.amountDZD : entry.amountDZD
                let remitted = entry.kind == .remittance ? String(amount) : ""
                let adjusted = entry.kind == .remittance ? "" : String(amount)
                lines.append(
                    [AlgiersCalendar.dayText(entry.day), entry.kind.rawValue, String(entry.seq)] + blank(5) + [remitted, adjusted, ""]
                        + [entry.method?.rawValue ?? "", entry.reference ?? "", entry.receivedBy ?? "", entry.reason ?? ""].map(safeText)
                        + [entry.reverses.map(String.init) ?? ""]
                )
            }
        }
        lines.append(
            [AlgiersCalendar.dayText(statement.toDay), "closing", ""] + figures(statement.totals) + [String(statement.closingDZD)] + blank(5)
        )
        return lines.map { $0.map(csvField).joined(separator: ",") + "\r\n" }.joined()
    }

    private static func figures(_ f: ShopDayFigures) -> [String] {
        [f.sales, f.salesDZD, f.cancellations, f.cancellationsDZD, f.commissionDZD, f.remittedDZD, f.adjustedDZD].map { String($0) }
    }

    /// A field quoted when it holds a comma, a quote or a line break (RFC 4180 § 2), its quotes doubled.
    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Typed text a spreadsheet would take for a formula (it begins with =, +, -, @, a tab or a carriage return),
    /// written with a leading apostrophe so it stays text.
    static func safeText(_ text: String) -> String {
        guard let first = text.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) else { return text }
        return "'" + text
    }

    // MARK: Journals

    /// The journal's dialect.
    public enum Journal: String, Sendable, CaseIterable {
        case hledger, beancount
    }

    /// The statement as a double-entry journal in DZD. Accounts (the shop's named by the start of its id):
    /// what it owes (`assets:receivable:shops:<shop>`), the commission it keeps (`expenses:commission:shops:<shop>`),
    /// membership income, the cash the team received (`assets:cash:remittances`), adjustments, and the opening
    /// balance. Each day's sales and cancellations are one transaction, each team entry one; the journal ends by
    /// asserting the closing balance. `reversedKinds` names the kind of each entry a reversal undoes.
    public static func journal(_ statement: ShopStatement, as dialect: Journal, reversedKinds: [Int64: ShopEntry.Kind]) -> String {
        let shop = "S" + String(statement.vendor.id.lowercasedText.filter { $0 != "-" }.prefix(8))
        let names = Accounts(shop: shop, dialect: dialect)
        var out = ""
        let from = AlgiersCalendar.dayText(statement.fromDay)
        out +=
            "; PEEZ statement of \(oneLine(statement.vendor.name)) (\(statement.vendor.id.lowercasedText)), \(from) to "
            + "\(AlgiersCalendar.dayText(statement.toDay)), in DZD\n\n"
        if dialect == .beancount {
            out += "option \"operating_currency\" \"DZD\"\n\n"
            for account in names.all { out += "\(from) open \(account) DZD\n" }
            out += "\n"
        }
        func transaction(_ day: Int64, _ description: String, _ postings: [(String, Int64)]) {
            let postings = postings.filter { $0.1 != 0 }
            guard !postings.isEmpty else { return }
            let date = AlgiersCalendar.dayText(day)
            out += dialect == .beancount ? "\(date) * \"\(beancountString(description))\"\n" : "\(date) \(oneLine(description))\n"
            for (account, amount) in postings { out += "    \(account)    \(amount) DZD\n" }
            out += "\n"
        }
        transaction(statement.fromDay, "Opening balance", [(names.receivable, statement.openingDZD), (names.opening, -statement.openingDZD)])
        let entriesByDay = Dictionary(grouping: statement.teamEntries, by: \.day)
        for day in statement.days {
            let f = day.figures
            transaction(
                f.day,
                "Sales \(f.sales) (\(f.salesDZD) DZD), cancellations \(f.cancellations) (\(f.cancellationsDZD) DZD)",
                [(names.receivable, f.grossDZD - f.commissionDZD), (names.commission, f.commissionDZD), (names.income, -f.grossDZD)]
            )
            for entry in entriesByDay[f.day] ?? [] {
                let counter = names.counterAccount(of: entry.kind == .reversal ? reversedKinds[entry.reverses ?? 0] ?? .adjustment : entry.kind)
                transaction(entry.day, description(of: entry), [(names.receivable, entry.amountDZD), (counter, -entry.amountDZD)])
            }
        }
        let closingDay = AlgiersCalendar.dayText(statement.toDay)
        switch dialect {
        case .hledger:
            out += "\(closingDay) Closing balance\n    \(names.receivable)    0 DZD = \(statement.closingDZD) DZD\n"
        case .beancount:
            out += "\(AlgiersCalendar.dayText(statement.toDay + 1)) balance \(names.receivable)    \(statement.closingDZD) DZD\n"
        }
        return out
    }

    private static func description(of entry: ShopEntry) -> String {
        var parts = ["\(entry.kind.rawValue.capitalized) (entry \(entry.seq))"]
        if let method = entry.method { parts.append("by \(method.rawValue)") }
        if let reference = entry.reference, !reference.isEmpty { parts.append("reference \(reference)") }
        if let receivedBy = entry.receivedBy { parts.append("received by \(receivedBy)") }
        if let reverses = entry.reverses { parts.append("reverses entry \(reverses)") }
        if let reason = entry.reason { parts.append(reason) }
        return parts.joined(separator: ", ")
    }

    /// Text on one line with nothing a journal reads as syntax: line breaks and control characters as spaces, `;`
    /// (a comment in hledger) as `,`.
    static func oneLine(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar -> Unicode.Scalar in
                    if scalar == ";" { return "," }
                    return scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}" ? " " : scalar
                }
            )
        )
    }

    /// Text inside a beancount string: on one line, its backslashes and quotes escaped.
    static func beancountString(_ text: String) -> String {
        oneLine(text).replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }

    /// The journal's account names in its dialect's spelling.
    struct Accounts {
        let receivable, commission, income, remittances, adjustments, opening: String

        init(shop: String, dialect: Journal) {
            let name = { (parts: [String]) in
                dialect == .beancount ? parts.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: ":") : parts.joined(separator: ":")
            }
            receivable = name(["assets", "receivable", "shops", shop])
            commission = name(["expenses", "commission", "shops", shop])
            income = name(["income", "memberships"])
            remittances = name(["assets", "cash", "remittances"])
            adjustments = name(["income", "adjustments", "shops", shop])
            opening = name(["equity", "opening-balances"])
        }

        var all: [String] { [receivable, commission, income, remittances, adjustments, opening] }

        /// The account a team entry of `kind` moves besides what the shop owes.
        func counterAccount(of kind: ShopEntry.Kind) -> String { kind == .remittance ? remittances : adjustments }
    }
}
