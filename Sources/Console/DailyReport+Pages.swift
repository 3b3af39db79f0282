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

        subscriptionSection(&layout, t, number, money, none: none)

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

        layout.section(t("payments.heading"))
        layout.paragraph(
            t("report.payments", ["paid": number(payments.paid), "dzd": number(payments.paid_dzd), "unsettled": number(payments.unsettled)])
                + " (\(now))",
            size: 10
        )
        if !payments.by_status.isEmpty {
            layout.table(
                title: t("payments.heading"),
                header: [t("payments.status"), t("payments.count"), t("payments.dzd")],
                columns: [0.5, 0.25, 0.25],
                rows: payments.by_status.map { [t("payment.\($0.status)"), number($0.count), number($0.dzd)] }
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

extension DailyReport {
    /// The day's subscription figures: the revenue bridge, churn, lengths sold, what reminders brought back.
    fileprivate func subscriptionSection(
        _ layout: inout ReportLayout,
        _ t: (String, [String: String]) -> String,
        _ number: (Int64) -> String,
        _ money: (Int64) -> String,
        none: String
    ) {
        let revenue = subscriptions.revenue
        let churn = subscriptions.churn
        func percent(_ value: Double?) -> String { value.map { String(format: "%.1f %%", $0 * 100) } ?? "—" }
        layout.section(t("panel.subscriptions", [:]), following: 60)
        layout.paragraph(
            t(
                "report.subscriptions",
                [
                    "mrr": money(revenue.end_dzd), "members": number(revenue.end_members), "days": number(subscriptions.grace_days),
                    "churn": percent(churn.rate),
                ]
            )
        )
        layout.paragraph(
            churn.through.map { _ in
                t(
                    "report.churn",
                    ["lapsed": number(churn.lapsed.members), "due": number(churn.due.members), "days": number(subscriptions.grace_days)]
                )
            } ?? t("subscriptions.churn_none", ["days": number(subscriptions.grace_days)]),
            size: 10
        )
        func row(_ key: String, _ movement: SubscriptionsPanelBody.Movement, _ sign: String) -> [String] {
            [t(key, [:]), number(movement.members), movement.dzd == 0 ? money(0) : "\(sign) \(money(movement.dzd))"]
        }
        layout.heading(t("subscriptions.bridge", [:]))
        layout.table(
            title: t("subscriptions.bridge", [:]),
            header: [t("subscriptions.movement", [:]), t("subscriptions.members", [:]), t("subscriptions.revenue", [:])],
            columns: [0.5, 0.2, 0.3],
            rows: [
                [t("subscriptions.start", [:]), number(revenue.start_members), money(revenue.start_dzd)],
                row("subscriptions.new", revenue.new, "+"), row("subscriptions.renewed", revenue.renewed, "+"),
                row("subscriptions.returning", revenue.returning, "+"), row("subscriptions.ended", revenue.ended, "−"),
                [t("subscriptions.end", [:]), number(revenue.end_members), money(revenue.end_dzd)],
            ],
            emphasised: [5]
        )
        if subscriptions.mix.isEmpty {
            layout.paragraph(t("subscriptions.mix", [:]) + ": " + none, size: 10)
        } else {
            layout.heading(t("subscriptions.mix", [:]))
            layout.table(
                title: t("subscriptions.mix", [:]),
                header: [
                    t("subscriptions.length", [:]), t("subscriptions.sales", [:]), t("subscriptions.new", [:]), t("subscriptions.renewed", [:]),
                    t("subscriptions.returning", [:]),
                ],
                columns: [0.28, 0.18, 0.18, 0.18, 0.18],
                rows: subscriptions.mix.map {
                    [t("subscriptions.length_\($0.months)", [:]), number($0.sales), number($0.new), number($0.renewed), number($0.returning)]
                }
            )
        }
        if !subscriptions.reminders.isEmpty {
            layout.heading(t("subscriptions.reminders", ["days": number(subscriptions.reminder_window_days)]))
            layout.table(
                title: t("subscriptions.reminders", ["days": number(subscriptions.reminder_window_days)]),
                header: [
                    t("subscriptions.channel", [:]), t("subscriptions.threshold", [:]), t("subscriptions.delivered", [:]),
                    t("subscriptions.brought_back", [:]),
                ],
                columns: [0.34, 0.3, 0.18, 0.18],
                rows: subscriptions.reminders.map {
                    [t("channel.\($0.channel)", [:]), t("threshold.\($0.threshold)", [:]), number($0.delivered), number($0.renewed)]
                }
            )
        }
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
