public import CardServices
public import ConsoleCharts
public import Foundation
public import Membership
import PeezBasics

/// What the console's panels are made of, read from the ledger's summaries and drawn as charts: the HTTP
/// console and `peez admin report` both use it. Actions (revoking a member's cards or a device) go through
/// the same services as the API's and are written to the audit trail under the console user's name.
public struct ConsoleService: Sendable {
    public typealias Ledger = ConsoleSummaryStore & ConsoleLookupStore & CounterDeviceStore & ScanStore & WalletStore & LedgerStore
        & CredentialLedger & PaymentStore & ShopAccountStore
    let store: any Ledger
    let texts: ConsoleTexts
    /// The service's clock.
    public let now: WallClock
    let changes: MemberChangeService
    let credentials: CredentialService

    public init(store: any Ledger, texts: ConsoleTexts, clock: WallClock) {
        self.store = store
        self.texts = texts
        self.now = clock
        changes = MemberChangeService(ledger: store, clock: clock)
        credentials = CredentialService(store: store, now: clock)
    }

    /// Today's Algiers day number.
    public var today: Int64 { AlgiersCalendar.dayNumber(now()) }

    /// Sales per shop over the range, and per day stacked by shop: the nine shops that sold most, the others
    /// summed (two small queries over the summary, whatever the number of shops).
    public func sales(_ range: ConsoleDays, _ language: ChartLanguage) async throws -> SalesPanelBody {
        let shops = try await store.salesByShop(from: range.first, to: range.last)
            .map { row in
                SalesPanelBody.Shop(
                    vendor_id: row.vendorID?.lowercasedText,
                    name: row.vendorName ?? texts.text("chart.in_app", language),
                    sales: row.sales,
                    months: row.months,
                    amount_dzd: row.amountDZD,
                    cancelled: row.cancelled
                )
            }
            .sorted { ($0.sales, $1.name) > ($1.sales, $0.name) }
        let charted = Array(shops.prefix(shops.count > 10 ? 9 : 10))
        let (days, totals) = try await store.salesDays(
            from: range.first,
            to: range.last,
            shops: charted.map { $0.vendor_id.flatMap(UUID.init(uuidString:)) }
        )
        let blank = Array(repeating: Int64(0), count: range.days.count)
        var values = Dictionary(uniqueKeysWithValues: charted.map { ($0.vendor_id ?? "", blank) })
        for row in days { values[row.vendorID?.lowercasedText ?? "", default: blank][Int(row.day - range.first)] = row.sales }
        var series = charted.map { StackedBarChart.Series(name: $0.name, values: values[$0.vendor_id ?? ""]!) }
        if shops.count > charted.count {
            let others = range.days.enumerated().map { index, day in
                totals[day, default: 0] - series.reduce(0) { $0 + $1.values[index] }
            }
            series.append(.init(name: texts.text("chart.others", language), values: others))
        }
        return SalesPanelBody(
            from: range.fromText,
            to: range.toText,
            total: .init(
                sales: shops.reduce(0) { $0 + $1.sales },
                months: shops.reduce(0) { $0 + $1.months },
                amount_dzd: shops.reduce(0) { $0 + $1.amount_dzd },
                cancelled: shops.reduce(0) { $0 + $1.cancelled }
            ),
            shops: shops,
            chart: bars("chart.sales", range.days, series, language)
        )
    }

    /// The renewal rate over the range's days up to today; the members whose paid time ends in the 7 and 30
    /// days from the range's last day (today at the latest), and per day over those 30 days.
    public func renewals(_ range: ConsoleDays, _ language: ChartLanguage) async throws -> RenewalsPanelBody {
        let today = min(today, range.last)
        let past = range.first <= today ? try await store.coverageDays(from: range.first, to: today) : []
        let ahead = try await store.coverageDays(from: today, to: today + 29)
        let renewed = past.reduce(0) { $0 + $1.renewed }
        let due = past.reduce(0) { $0 + $1.renewed + $1.ending }
        var ending = Array(repeating: Int64(0), count: 30)
        for day in ahead { ending[Int(day.day - today)] = day.ending }
        return RenewalsPanelBody(
            from: range.fromText,
            to: range.toText,
            due: due,
            renewed: renewed,
            rate: due > 0 ? Double(renewed) / Double(due) : nil,
            ahead_from: AlgiersCalendar.dayText(today),
            ending_7: ending.prefix(7).reduce(0, +),
            ending_30: ending.reduce(0, +),
            chart: bars("chart.renewals", Array(today..<today + 30), [.init(name: texts.text("chart.ending", language), values: ending)], language)
        )
    }

    /// Cards seen at two shops at most ten minutes apart, the second time in the range's days, with their
    /// members: each card once, its closest pair (the most recent of equals), the 100 most recent cards.
    public func anomalies(_ range: ConsoleDays) async throws -> AnomaliesPanelBody {
        let within: Int64 = 600
        let sightings = try await store.closestSharedSightings(from: range.start, until: range.end, cards: 100)
        let members = try await store.memberStandings(membershipIDs: sightings.compactMap(\.later.scan.membershipID))
        let byID = Dictionary(members.map { ($0.member.membershipID, $0) }, uniquingKeysWith: { first, _ in first })
        func sighting(_ scan: ReportedScan) -> AnomaliesPanelBody.Sighting {
            .init(
                vendor_id: scan.vendorID.lowercasedText,
                vendor_name: scan.vendorName,
                counter_id: scan.scan.counterID.lowercasedText,
                scanned_at: scan.scan.scannedAt
            )
        }
        return AnomaliesPanelBody(
            from: range.fromText,
            to: range.toText,
            within_seconds: within,
            cards: sightings.map { pair in
                let member = pair.later.scan.membershipID.flatMap { byID[$0] }
                return .init(
                    token_id: pair.later.scan.tokenID ?? "",
                    membership_id: pair.later.scan.membershipID,
                    member_uuid: member?.member.uuid.lowercasedText,
                    member_name: member?.member.name,
                    seconds_apart: pair.secondsApart,
                    cards_revoked: (member?.cardsValidFrom ?? 0) > pair.later.scan.scannedAt,
                    earlier: sighting(pair.earlier),
                    later: sighting(pair.later)
                )
            }
        )
    }

    public func reminders(_ range: ConsoleDays, _ language: ChartLanguage) async throws -> RemindersPanelBody {
        let rows = try await store.reminderDays(from: range.first, to: range.last)
        let outbox = try await store.reminderOutbox()
        return RemindersPanelBody(
            from: range.fromText,
            to: range.toText,
            by_outcome: Self.totals(rows).map { .init(channel: $0.source, platform: nil, outcome: $0.outcome, count: $0.count) },
            outbox: outbox.map { .init(channel: $0.channel, waiting: $0.waiting, oldest_due_at: $0.oldestDueAt) },
            chart: outcomeChart(rows, range, title: "chart.reminders", sourcePrefix: "channel.", language)
        )
    }

    public func wallet(_ range: ConsoleDays, _ language: ChartLanguage) async throws -> WalletPanelBody {
        let rows = try await store.pushDays(from: range.first, to: range.last)
        let tallies = try await store.walletTallies()
        return WalletPanelBody(
            from: range.fromText,
            to: range.toText,
            apple_passes: tallies.applePasses,
            apple_devices: tallies.appleDevices,
            google_objects: tallies.googleObjects,
            outbox_waiting: tallies.appleWaiting + tallies.googleFailing,
            pushes: Self.totals(rows).map { .init(channel: nil, platform: $0.source, outcome: $0.outcome, count: $0.count) },
            chart: outcomeChart(rows, range, title: "chart.wallet", sourcePrefix: "platform.", language)
        )
    }

    /// Per source and outcome, summed over the days.
    static func totals(_ rows: [OutcomeDay]) -> [(source: String, outcome: String, count: Int64)] {
        var sums: [String: [String: Int64]] = [:]
        for row in rows { sums[row.source, default: [:]][row.outcome, default: 0] += row.count }
        return sums.keys.sorted().flatMap { source in sums[source]!.keys.sorted().map { (source, $0, sums[source]![$0]!) } }
    }

    /// Stacked bars per day, one series per source and outcome ("Webhook · delivered").
    private func outcomeChart(_ rows: [OutcomeDay], _ range: ConsoleDays, title: String, sourcePrefix: String, _ language: ChartLanguage) -> String {
        var series: [String: [Int64]] = [:]
        for row in rows {
            let name = texts.text(sourcePrefix + row.source, language) + " · " + texts.text("outcome." + row.outcome, language)
            series[name, default: Array(repeating: 0, count: range.days.count)][Int(row.day - range.first)] += row.count
        }
        return bars(title, range.days, series.keys.sorted().map { .init(name: $0, values: series[$0]!) }, language)
    }

    /// Stacked bars over `days` (Algiers day numbers), titled with the text `titleKey`, as an SVG document.
    private func bars(_ titleKey: String, _ days: [Int64], _ series: [StackedBarChart.Series], _ language: ChartLanguage) -> String {
        StackedBarChart(
            title: texts.text(titleKey, language),
            days: days.map(AlgiersCalendar.dayText),
            series: series,
            language: language,
            emptyText: texts.text("chart.empty", language),
            othersName: texts.text("chart.others", language)
        ).svg()
    }

    /// Every counter device as it stood at the end of the range (now, for a range that ends today): those made
    /// by then, each last sync up to then (a later one said, not shown), revoked if it was by then.
    public func counters(_ range: ConsoleDays) async throws -> CountersPanelBody {
        let present = now()
        let time = min(present, range.end - 1)
        return CountersPanelBody(
            now: time,
            live: time == present,
            devices: try await store.counterDevices().filter { $0.credential.createdAt <= time }.map { device in
                let credential = device.credential
                let sync = device.lastSyncAt.flatMap { $0 <= time ? $0 : nil }
                return .init(
                    credential_id: credential.id.lowercasedText,
                    label: credential.label,
                    vendor_id: credential.vendorID?.lowercasedText ?? "",
                    vendor_name: device.vendorName,
                    created_at: credential.createdAt,
                    last_used_at: credential.lastUsedAt.flatMap { $0 <= time ? $0 : nil },
                    last_sync_at: sync,
                    synced_since: device.lastSyncAt.map { $0 > time } ?? false,
                    trust_age_seconds: sync.map { max(0, time - $0) },
                    revoked_at: credential.revokedAt.flatMap { $0 <= time ? $0 : nil },
                    expires_at: credential.expiresAt
                )
            }
        )
    }

    /// Up to 20 members by any part of the name, phone or membership id (see ``MemberSearch``); an empty or too
    /// long query is `invalidFields`.
    public func searchMembers(_ text: String) async throws -> MemberListBody {
        guard let query = MemberSearch(text) else {
            throw MembershipError(
                .invalidFields,
                "The search is not valid.",
                fields: ["q": "must be 1 to 100 characters, no control or bidirectional override character"]
            )
        }
        return MemberListBody(
            members: try await store.searchMembers(query, limit: 20).map {
                .init(
                    uuid: $0.member.uuid.lowercasedText,
                    membership_id: $0.member.membershipID,
                    name: $0.member.name,
                    phone: $0.member.phone,
                    neighbourhood: $0.member.neighbourhood,
                    neighbourhood_names: neighbourhoodNames($0.member.neighbourhood),
                    paid_until: $0.coverageEnd
                )
            }
        )
    }

    /// The newest `limit` entries of the audit trail made in the range's days, newest first.
    public func audit(_ range: ConsoleDays, limit: Int) async throws -> ConsoleAuditBody {
        ConsoleAuditBody(
            from: range.fromText,
            to: range.toText,
            entries: try await store.audit(from: range.start, until: range.end, limit: limit).map {
                .init(
                    seq: $0.seq,
                    at: $0.at,
                    actor: $0.actor,
                    address: $0.address,
                    action: $0.action,
                    target: $0.target,
                    detail: $0.detail,
                    values: $0.values
                )
            }
        )
    }

    /// Revokes every card of the member (a card seen at two shops), in the audit trail under `actor`.
    public func revokeCards(memberUUID: UUID, by actor: AuditActor) async throws -> RevokedCardsBody {
        let revokedBefore = try await changes.revokeCards(memberUUID: memberUUID, by: actor)
        return RevokedCardsBody(member_uuid: memberUUID.lowercasedText, revoked_before: revokedBefore)
    }

    /// Revokes a device's credential (in the audit trail under `actor`).
    public func revokeCredential(id: UUID, by actor: AuditActor) async throws -> APICredential {
        try await credentials.revoke(id: id, by: actor)
    }
}
