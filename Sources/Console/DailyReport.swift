public import ConsoleCharts
import Foundation
import Membership
import PeezBasics

/// One day's report: the console's panels for that Algiers day, as CSV sections or as printable pages. Every
/// section is bounded to the day: its sales, renewals, cards seen at two shops, reminders and Wallet pushes, online
/// payments, its audit trail; the renewals ahead are counted from the day; each counter as it stood at the day's end (a sync
/// since is said, not shown as the day's). What only exists now (the outboxes, the Wallet passes held) is
/// labelled with the time the report was made.
public struct DailyReport: Sendable {
    public let day: Int64
    public let language: ChartLanguage
    /// When the report was made: the time of its "now" figures.
    public let madeAt: Int64
    public let sales: SalesPanelBody
    public let renewals: RenewalsPanelBody
    /// The subscription figures of the day: its revenue bridge, churn, lengths sold, reminders' returns, and the
    /// cohorts of the twelve months that end with it.
    public let subscriptions: SubscriptionsPanelBody
    public let anomalies: [AnomaliesPanelBody.Card]
    public let reminders: RemindersPanelBody
    public let wallet: WalletPanelBody
    /// The day's online payments by status, and what the service is still reading back from Chargily.
    public let payments: PaymentsPanelBody
    /// The counter devices as they stood at the day's end.
    public let counters: CountersPanelBody
    public let audit: [ConsoleAuditBody.Entry]

    /// The most audit entries a report lists.
    static let auditLimit = 1_000

    /// Reads every panel for `day`.
    public static func make(_ console: ConsoleService, day: Int64, language: ChartLanguage) async throws -> DailyReport {
        let range = ConsoleDays(first: day, last: day)
        return DailyReport(
            day: day,
            language: language,
            madeAt: console.now(),
            sales: try await console.sales(range, language),
            renewals: try await console.renewals(range, language),
            subscriptions: try await console.subscriptions(range, language),
            anomalies: try await console.anomalies(range).cards,
            reminders: try await console.reminders(range, language),
            wallet: try await console.wallet(range, language),
            payments: try await console.payments(range, language),
            counters: try await console.counters(range),
            audit: try await console.audit(range, limit: auditLimit).entries
        )
    }

    /// The report as CSV (RFC 4180): one section per panel, a blank line between sections, each section's
    /// first row naming its columns and its first column naming the section.
    public func csv() -> String {
        var rows: [[String]] = []
        func section(_ name: String, _ header: [String], _ body: [[String]]) {
            if !rows.isEmpty { rows.append([]) }
            rows.append(["section"] + header)
            rows += body.map { [name] + $0 }
        }
        let date = AlgiersCalendar.dayText(day)
        section(
            "sales",
            ["day", "vendor_id", "shop", "sales", "months", "amount_dzd", "cancelled"],
            sales.shops.map { [date, $0.vendor_id ?? "", $0.name, "\($0.sales)", "\($0.months)", "\($0.amount_dzd)", "\($0.cancelled)"] }
        )
        section(
            "renewals",
            ["day", "due", "renewed", "rate", "ending_counted_from", "ending_7_days", "ending_30_days"],
            [
                [
                    date, "\(renewals.due)", "\(renewals.renewed)", renewals.rate.map { String(format: "%.4f", $0) } ?? "", renewals.ahead_from,
                    "\(renewals.ending_7)", "\(renewals.ending_30)",
                ]
            ]
        )
        subscriptionSections(section)
        section(
            "cards_at_two_shops",
            ["membership_id", "member", "first_shop", "first_scan", "second_shop", "second_scan", "seconds_apart", "cards_revoked"],
            anomalies.map {
                [
                    $0.membership_id ?? "", $0.member_name ?? "", $0.earlier.vendor_name, AlgiersCalendar.iso8601($0.earlier.scanned_at),
                    $0.later.vendor_name, AlgiersCalendar.iso8601($0.later.scanned_at), "\($0.seconds_apart)", $0.cards_revoked ? "yes" : "no",
                ]
            }
        )
        section(
            "reminders",
            ["day", "channel", "outcome", "count"],
            reminders.by_outcome.map { [date, $0.channel ?? "", $0.outcome, "\($0.count)"] }
        )
        let now = AlgiersCalendar.iso8601(madeAt)
        section(
            "reminder_outbox",
            ["as_of", "channel", "waiting", "oldest_due_at"],
            reminders.outbox.map { [now, $0.channel, "\($0.waiting)", $0.oldest_due_at.map(AlgiersCalendar.iso8601) ?? ""] }
        )
        section(
            "wallet",
            ["as_of", "apple_passes", "apple_devices", "google_objects", "outbox_waiting"],
            [[now, "\(wallet.apple_passes)", "\(wallet.apple_devices)", "\(wallet.google_objects)", "\(wallet.outbox_waiting)"]]
        )
        section(
            "wallet_pushes",
            ["day", "platform", "outcome", "count"],
            wallet.pushes.map { [date, $0.platform ?? "", $0.outcome, "\($0.count)"] }
        )
        section("payments", ["day", "status", "count", "dzd"], payments.by_status.map { [date, $0.status, "\($0.count)", "\($0.dzd)"] })
        section("payments_unsettled", ["as_of", "unsettled"], [[now, "\(payments.unsettled)"]])
        section(
            "counters",
            ["as_of", "shop", "device", "credential_id", "last_sync_at", "trust_age_seconds", "synced_since", "state"],
            counters.devices.map {
                [
                    AlgiersCalendar.iso8601(counters.now), $0.vendor_name, $0.label, $0.credential_id,
                    $0.last_sync_at.map(AlgiersCalendar.iso8601) ?? "",
                    $0.trust_age_seconds.map { "\($0)" } ?? "", $0.synced_since ? "yes" : "no", $0.revoked_at != nil ? "revoked" : "active",
                ]
            }
        )
        section(
            "audit",
            ["at", "actor", "address", "action", "target", "detail"],
            audit.reversed().map { [AlgiersCalendar.iso8601($0.at), $0.actor, $0.address, $0.action, $0.target, $0.detail] }
        )
        return rows.map { $0.map(Self.field).joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
    }

    /// The subscription figures' sections: the day's revenue bridge, churn, lengths sold and reminders' returns,
    /// and the cohorts (one row per cohort and month since).
    private func subscriptionSections(_ section: (String, [String], [[String]]) -> Void) {
        let date = AlgiersCalendar.dayText(day)
        let revenue = subscriptions.revenue
        func pair(_ movement: SubscriptionsPanelBody.Movement) -> [String] { ["\(movement.members)", "\(movement.dzd)"] }
        func ratio(_ value: Double?) -> String { value.map { String(format: "%.4f", $0) } ?? "" }
        section(
            "revenue",
            [
                "day", "members_start", "mrr_start_dzd", "new", "new_dzd", "renewed", "renewed_dzd", "returning", "returning_dzd", "ended",
                "ended_dzd", "lapsed", "lapsed_dzd", "in_grace", "in_grace_dzd", "members_end", "mrr_end_dzd",
            ],
            [
                [date, "\(revenue.start_members)", "\(revenue.start_dzd)"] + pair(revenue.new) + pair(revenue.renewed) + pair(revenue.returning)
                    + pair(revenue.ended) + pair(revenue.lapsed) + pair(revenue.in_grace) + ["\(revenue.end_members)", "\(revenue.end_dzd)"]
            ]
        )
        let churn = subscriptions.churn
        section(
            "churn",
            ["day", "grace_days", "counted_through", "due", "renewed", "lapsed", "rate", "revenue_rate"],
            [
                [
                    date, "\(subscriptions.grace_days)", churn.through ?? "", "\(churn.due.members)", "\(churn.renewed.members)",
                    "\(churn.lapsed.members)", ratio(churn.rate), ratio(churn.revenue_rate),
                ]
            ]
        )
        section(
            "lengths_sold",
            ["day", "months", "sales", "amount_dzd", "new", "renewed", "returning"],
            subscriptions.mix.map { [date, "\($0.months)", "\($0.sales)", "\($0.amount_dzd)", "\($0.new)", "\($0.renewed)", "\($0.returning)"] }
        )
        section(
            "reminder_returns",
            ["day", "channel", "threshold", "delivered", "renewed_within_\(subscriptions.reminder_window_days)_days", "rate"],
            subscriptions.reminders.map { [date, $0.channel, $0.threshold, "\($0.delivered)", "\($0.renewed)", ratio($0.rate)] }
        )
        section(
            "cohorts",
            ["first_paid", "members", "month", "with_paid_time", "retention"],
            subscriptions.cohorts.filter { $0.members > 0 }.flatMap { cohort in
                cohort.active.enumerated().map { month, active in
                    [cohort.month, "\(cohort.members)", "\(month)", "\(active)", ratio(cohort.retention[month])]
                }
            }
        )
    }

    /// A CSV field, quoted when it must be; a leading =, +, - or @ is prefixed with ' so that a spreadsheet
    /// never runs a member's name as a formula.
    static func field(_ value: String) -> String {
        var text = value
        if let first = text.first, "=+-@".contains(first), Int64(text) == nil { text = "'" + text }
        guard text.contains(where: { ",\"\r\n".contains($0) }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
