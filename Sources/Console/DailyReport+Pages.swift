import ConsoleCharts
import Foundation
import Membership
import PeezBasics

extension DailyReport {
    /// The report as A4 pages (SVG documents, 595 × 842 points): each panel's figures and chart, in
    /// `language`. `peez admin report --pdf` renders them.
    public func pages(texts: ConsoleTexts) -> [String] {
        var page = ReportPage(rightToLeft: language == .ar)
        var pages: [String] = []
        func t(_ key: String, _ values: [String: String] = [:]) -> String { texts.text(key, language, values) }
        func number(_ value: Int64) -> String { language.integer(value) }
        func need(_ height: Double) {
            if page.y + height > ReportPage.height - ReportPage.margin {
                pages.append(page.document)
                page = ReportPage(rightToLeft: language == .ar)
            }
        }
        page.heading(t("report.title", ["day": AlgiersCalendar.dayText(day)]), size: 18)
        page.heading(t("panel.sales"))
        page.line(
            t(
                "report.sales",
                [
                    "sales": number(sales.total.sales), "months": number(sales.total.months), "amount": number(sales.total.amount_dzd),
                    "cancelled": number(sales.total.cancelled),
                ]
            )
        )
        for shop in sales.shops.prefix(12) {
            page.line("\(shop.name): \(number(shop.sales)) · \(t("money", ["amount": number(shop.amount_dzd)]))", size: 10)
        }
        need(60)
        page.heading(t("panel.renewals"))
        page.line(
            t(
                "report.renewals",
                [
                    "rate": renewals.rate.map { "\(Int(($0 * 100).rounded())) %" } ?? "—", "renewed": number(renewals.renewed),
                    "due": number(renewals.due), "ending7": number(renewals.ending_7), "ending30": number(renewals.ending_30),
                ]
            )
        )
        page.line(t("renewals.ahead", ["day": renewals.ahead_from]), size: 10)
        need(230)
        page.chart(renewals.chart)
        need(80)
        page.heading(t("panel.anomalies"))
        page.line(t("report.anomalies", ["count": number(Int64(anomalies.count))]))
        for card in anomalies.prefix(20) {
            need(16)
            page.line(
                t(
                    "report.anomaly_line",
                    [
                        "member": card.member_name ?? "?", "id": card.membership_id ?? "", "first": card.earlier.vendor_name,
                        "second": card.later.vendor_name, "minutes": number(max(1, card.seconds_apart / 60)),
                    ]
                ),
                size: 10
            )
        }
        need(80)
        page.heading(t("panel.reminders"))
        let now = t("report.as_of", ["time": AlgiersCalendar.minuteStamp(madeAt)])
        for outcome in reminders.by_outcome {
            page.line("\(t("channel.\(outcome.channel ?? "")")) · \(t("outcome.\(outcome.outcome)")): \(number(outcome.count))", size: 10)
        }
        for box in reminders.outbox {
            page.line(t("report.outbox", ["channel": t("channel.\(box.channel)"), "waiting": number(box.waiting)]) + " (\(now))", size: 10)
        }
        need(80)
        page.heading(t("panel.wallet"))
        page.line(
            t(
                "report.wallet",
                [
                    "passes": number(wallet.apple_passes), "devices": number(wallet.apple_devices), "google": number(wallet.google_objects),
                    "waiting": number(wallet.outbox_waiting),
                ]
            ) + " (\(now))"
        )
        for push in wallet.pushes {
            page.line("\(t("platform.\(push.platform ?? "")")) · \(t("outcome.\(push.outcome)")): \(number(push.count))", size: 10)
        }
        need(80)
        page.heading(t("panel.counters"))
        for counter in counters.prefix(40) {
            need(16)
            let sync = counter.lastSyncThatDay.map(AlgiersCalendar.minuteStamp) ?? (counter.syncedSince ? t("report.synced_since") : "—")
            page.line(t("report.counter_line", ["shop": counter.device.vendor_name, "device": counter.device.label, "sync": sync]), size: 10)
        }
        need(60)
        page.heading(t("audit.heading"))
        if audit.isEmpty { page.line(t("audit.none"), size: 10) }
        for entry in audit.reversed() {
            need(16)
            page.line("\(AlgiersCalendar.minuteStamp(entry.at)) · \(entry.actor) · \(auditLine(entry, t))", size: 10)
        }
        need(230)
        page.chart(sales.chart)
        pages.append(page.document)
        return pages
    }
}

/// An audit entry's action and detail in `t`'s language, fact by fact as the console shows them (the detail as
/// written for an entry kept before its facts were).
func auditLine(_ entry: ConsoleAuditBody.Entry, _ t: (String, [String: String]) -> String) -> String {
    func named(_ prefix: String, _ name: String) -> String {
        let said = t(prefix + name, [:])
        return said == prefix + name ? name : said
    }
    let action = named("action.", entry.action)
    guard let values = entry.values else { return "\(action): \(entry.detail)" }
    guard !values.isEmpty else { return action }
    let facts = values.map { value in
        let said =
            value.name == "role"
            ? named("role.", value.value)
            : value.name == "fields" ? value.value.split(separator: ",").map { named("member.", String($0)) }.joined(separator: ", ") : value.value
        return "\(named("audit.value.", value.name)): \(said)"
    }
    return "\(action): " + facts.joined(separator: " · ")
}

/// One A4 page being filled top to bottom.
struct ReportPage {
    static let width = 595.0
    static let height = 842.0
    static let margin = 40.0
    let rightToLeft: Bool
    var y = margin
    var body = ""

    init(rightToLeft: Bool) { self.rightToLeft = rightToLeft }

    mutating func heading(_ text: String, size: Double = 14) {
        y += size + 10
        write(text, size: size, weight: "bold")
    }

    mutating func line(_ text: String, size: Double = 11) {
        y += size + 5
        write(text, size: size, weight: nil)
    }

    private mutating func write(_ text: String, size: Double, weight: String?) {
        let x = rightToLeft ? Self.width - Self.margin : Self.margin
        body +=
            "<text x=\"\(SVGText.number(x))\" y=\"\(SVGText.number(y))\" font-size=\"\(SVGText.number(size))\" "
            + "text-anchor=\"start\"\(rightToLeft ? " direction=\"rtl\"" : "")"
            + (weight.map { " font-weight=\"\($0)\"" } ?? "") + ">\(SVGText.escaped(text))</text>"
    }

    /// A chart (a whole SVG document) scaled to the page's width.
    mutating func chart(_ svg: String) {
        let width = Self.width - 2 * Self.margin
        let height = width * 0.42
        y += 8
        body += svg.replacingOccurrences(
            of: "<svg ",
            with:
                "<svg x=\"\(SVGText.number(Self.margin))\" y=\"\(SVGText.number(y))\" width=\"\(SVGText.number(width))\" height=\"\(SVGText.number(height))\" ",
            options: [.anchored]
        )
        y += height
    }

    var document: String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(Self.width))pt\" height=\"\(Int(Self.height))pt\" "
            + "viewBox=\"0 0 \(Int(Self.width)) \(Int(Self.height))\" font-family=\"DejaVu Sans, sans-serif\">"
            + "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>" + body + "</svg>"
    }
}
