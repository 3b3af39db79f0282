import ConsoleCharts
import Foundation
import Membership
import PeezBasics

extension DailyReport {
    /// The report as A4 pages (SVG documents, 595 × 842 points) in `language`, laid out as ``ReportLayout`` lays
    /// out a printed report: each section with its figures, its tables whole (every shop, its total) and continued
    /// over pages, its chart; an empty section says so. `peez admin report --pdf` renders them.
    public func pages(texts: ConsoleTexts) -> [String] {
        func t(_ key: String, _ values: [String: String] = [:]) -> String { texts.text(key, language, values) }
        func number(_ value: Int64) -> String { language.integer(value) }
        func money(_ value: Int64) -> String { t("money", ["amount": number(value)]) }
        var layout = ReportLayout(rightToLeft: language == .ar, continued: t("report.continued"))
        let none = t("report.none")
        let now = t("report.as_of", ["time": AlgiersCalendar.minuteStamp(madeAt)])
        layout.title(t("report.title", ["day": AlgiersCalendar.dayText(day)]))
        layout.paragraph(t("report.made", ["time": AlgiersCalendar.minuteStamp(madeAt)]), size: 9)

        layout.section(t("panel.sales"))
        layout.paragraph(
            t(
                "report.sales",
                [
                    "sales": number(sales.total.sales), "months": number(sales.total.months), "amount": number(sales.total.amount_dzd),
                    "cancelled": number(sales.total.cancelled),
                ]
            )
        )
        if sales.shops.isEmpty {
            layout.paragraph(none, size: 10)
        } else {
            let rows = sales.shops.map { [$0.name, number($0.sales), number($0.months), money($0.amount_dzd), number($0.cancelled)] }
            let total = [
                t("sales.total"), number(sales.total.sales), number(sales.total.months), money(sales.total.amount_dzd), number(sales.total.cancelled),
            ]
            layout.table(
                title: t("panel.sales"),
                header: [t("sales.shop"), t("sales.sales"), t("sales.months"), t("sales.amount"), t("sales.cancelled")],
                columns: [0.4, 0.12, 0.14, 0.2, 0.14],
                rows: rows + [total],
                emphasised: [rows.count]
            )
            layout.chart(sales.chart, caption: t("sales.chart"))
        }

        layout.section(t("panel.renewals"), following: 60)
        layout.paragraph(
            t(
                "report.renewals",
                [
                    "rate": renewals.rate.map { "\(Int(($0 * 100).rounded())) %" } ?? "—", "renewed": number(renewals.renewed),
                    "due": number(renewals.due), "ending7": number(renewals.ending_7), "ending30": number(renewals.ending_30),
                ]
            )
        )
        layout.paragraph(t("renewals.ahead", ["day": renewals.ahead_from]), size: 10)
        layout.chart(renewals.chart, caption: t("renewals.chart"))

        layout.section(t("panel.anomalies"))
        layout.paragraph(t("report.anomalies", ["count": number(Int64(anomalies.count))]))
        if !anomalies.isEmpty {
            layout.table(
                title: t("panel.anomalies"),
                header: [t("anomalies.member"), t("anomalies.earlier"), t("anomalies.later"), t("anomalies.apart")],
                columns: [0.36, 0.26, 0.26, 0.12],
                rows: anomalies.map { card in
                    [
                        "\(card.member_name ?? t("anomalies.no_name")) \(card.membership_id ?? "")", card.earlier.vendor_name,
                        card.later.vendor_name, t("report.minutes", ["minutes": number(max(1, card.seconds_apart / 60))]),
                    ]
                }
            )
        }

        layout.section(t("panel.reminders"))
        if reminders.by_outcome.isEmpty {
            layout.paragraph(none, size: 10)
        } else {
            layout.table(
                title: t("panel.reminders"),
                header: [t("reminders.channel"), t("audit.action"), t("sales.sales")],
                columns: [0.5, 0.3, 0.2],
                rows: reminders.by_outcome.map { [t("channel.\($0.channel ?? "")"), t("outcome.\($0.outcome)"), number($0.count)] }
            )
        }
        layout.paragraph(
            reminders.outbox.isEmpty
                ? t("reminders.outbox_empty") + " (\(now))"
                : reminders.outbox.map { t("report.outbox", ["channel": t("channel.\($0.channel)"), "waiting": number($0.waiting)]) }
                    .joined(separator: " · ") + " (\(now))",
            size: 10
        )

        layout.section(t("panel.wallet"))
        layout.paragraph(
            t(
                "report.wallet",
                [
                    "passes": number(wallet.apple_passes), "devices": number(wallet.apple_devices), "google": number(wallet.google_objects),
                    "waiting": number(wallet.outbox_waiting),
                ]
            ) + " (\(now))",
            size: 10
        )
        if !wallet.pushes.isEmpty {
            layout.table(
                title: t("panel.wallet"),
                header: [t("wallet.platform"), t("audit.action"), t("sales.sales")],
                columns: [0.5, 0.3, 0.2],
                rows: wallet.pushes.map { [t("platform.\($0.platform ?? "")"), t("outcome.\($0.outcome)"), number($0.count)] }
            )
        }

        layout.section(t("panel.counters"))
        if counters.devices.isEmpty {
            layout.paragraph(t("counters.none"), size: 10)
        } else {
            layout.table(
                title: t("panel.counters"),
                header: [t("sales.shop"), t("counters.device"), t("counters.last_sync"), t("counters.status")],
                columns: [0.26, 0.22, 0.34, 0.18],
                rows: counters.devices.map { device in
                    [
                        device.vendor_name, device.label.isEmpty ? t("counters.no_label") : device.label,
                        device.last_sync_at.map(AlgiersCalendar.minuteStamp)
                            ?? (device.synced_since ? t("report.synced_since") : t("counters.never")),
                        device.revoked_at != nil ? t("report.revoked") : t("counters.active"),
                    ]
                }
            )
        }

        layout.section(t("audit.heading"))
        if audit.isEmpty { layout.paragraph(t("audit.none"), size: 10) }
        for entry in audit.reversed() {
            layout.paragraph("\(AlgiersCalendar.minuteStamp(entry.at)) · \(entry.actor) · \(auditLine(entry, t))", size: 9)
        }
        return layout.pages { page, count in t("report.page", ["page": number(Int64(page)), "pages": number(Int64(count))]) }
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
