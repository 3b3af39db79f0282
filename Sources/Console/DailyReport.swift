public import ConsoleCharts
import Foundation
import PeezBasics

/// One day's report: the console's panels for that Algiers day, as CSV sections or as printable pages.
public struct DailyReport: Sendable {
    public let day: Int64
    public let language: ChartLanguage
    public let sales: SalesPanelBody
    public let renewals: RenewalsPanelBody
    public let anomalies: [AnomaliesPanelBody.Card]
    public let reminders: RemindersPanelBody
    public let wallet: WalletPanelBody
    public let counters: CountersPanelBody

    /// Reads every panel for `day`.
    public static func make(_ console: ConsoleService, day: Int64, language: ChartLanguage) async throws -> DailyReport {
        let range = ConsoleDays(first: day, last: day)
        let back = max(1, min(90, console.today - day + 1))
        let anomalies = try await console.anomalies(days: back).cards.filter { AlgiersCalendar.dayNumber($0.later.scanned_at) == day }
        return DailyReport(
            day: day,
            language: language,
            sales: try await console.sales(range, language),
            renewals: try await console.renewals(range, language),
            anomalies: anomalies,
            reminders: try await console.reminders(range, language),
            wallet: try await console.wallet(range, language),
            counters: try await console.counters()
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
            ["day", "due", "renewed", "rate", "ending_7_days", "ending_30_days"],
            [
                [
                    date, "\(renewals.due)", "\(renewals.renewed)", renewals.rate.map { String(format: "%.4f", $0) } ?? "", "\(renewals.ending_7)",
                    "\(renewals.ending_30)",
                ]
            ]
        )
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
        section(
            "reminder_outbox",
            ["channel", "waiting", "oldest_due_at"],
            reminders.outbox.map { [$0.channel, "\($0.waiting)", $0.oldest_due_at.map(AlgiersCalendar.iso8601) ?? ""] }
        )
        section(
            "wallet",
            ["apple_passes", "apple_devices", "google_objects", "outbox_waiting"],
            [["\(wallet.apple_passes)", "\(wallet.apple_devices)", "\(wallet.google_objects)", "\(wallet.outbox_waiting)"]]
        )
        section(
            "wallet_pushes",
            ["day", "platform", "outcome", "count"],
            wallet.pushes.map { [date, $0.platform ?? "", $0.outcome, "\($0.count)"] }
        )
        section(
            "counters",
            ["shop", "device", "credential_id", "last_sync_at", "trust_age_seconds", "state"],
            counters.devices.map {
                [
                    $0.vendor_name, $0.label, $0.credential_id, $0.last_sync_at.map(AlgiersCalendar.iso8601) ?? "",
                    $0.trust_age_seconds.map { "\($0)" } ?? "", $0.revoked_at != nil ? "revoked" : "active",
                ]
            }
        )
        return rows.map { $0.map(Self.field).joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
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
