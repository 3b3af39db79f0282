public import ConsoleCharts
public import Foundation
import Membership
import PeezBasics

extension ConsoleService {
    /// One member: facts, the coverage timeline (periods, sales, cancellations, card revocations, device keys,
    /// Wallet, the latest scans) and the same events as a list, newest first. An unknown member is `notFound`.
    public func member(uuid: UUID, _ language: ChartLanguage) async throws -> MemberPanelBody {
        guard var history = try await store.memberHistory(uuid: uuid) else {
            throw MembershipError(.notFound, "No member has uuid \(uuid.lowercasedText).")
        }
        let member = history.standing.member
        history.scans = try await store.reportedScans(membershipID: member.membershipID, tokenID: nil, limit: 50)
        let events = self.events(history, language)
        let timeline = CoverageTimeline(
            title: texts.text("chart.timeline", language, ["name": member.name]),
            periods: history.periods.map { period in
                .init(
                    start: period.startsAt,
                    end: period.endsAt,
                    label: "\(AlgiersCalendar.dayText(AlgiersCalendar.dayNumber(period.startsAt))) → "
                        + AlgiersCalendar.dayText(AlgiersCalendar.dayNumber(period.endsAt)),
                    cancelled: period.cancelledAt != nil
                )
            },
            events: events.compactMap { event in
                Self.lanes[event.kind].map { .init(at: event.at, lane: $0, label: event.detail) }
            },
            now: now(),
            language: language,
            periodsName: texts.text("timeline.periods", language),
            laneNames: Dictionary(uniqueKeysWithValues: CoverageTimeline.Lane.allCases.map { ($0, texts.text("timeline.\($0)", language)) }),
            todayName: texts.text("timeline.today", language)
        )
        return MemberPanelBody(
            member: .init(
                uuid: member.uuid.lowercasedText,
                membership_id: member.membershipID,
                name: member.name,
                phone: member.phone,
                email: member.email,
                neighbourhood: member.neighbourhood,
                neighbourhood_names: neighbourhoodNames(member.neighbourhood),
                language: member.language.rawValue,
                created_at: member.createdAt,
                paid_until: history.standing.coverageEnd,
                device_bound: member.deviceKey != nil,
                cards_valid_from: history.standing.cardsValidFrom
            ),
            events: events.sorted { $0.at > $1.at },
            chart: timeline.svg()
        )
    }

    /// The lane of each kind of event on the timeline (joining is the timeline's start, not a lane).
    static let lanes: [String: CoverageTimeline.Lane] = [
        "sale": .sale, "cancellation": .cancellation, "cards_revoked": .revocation, "device_key": .deviceKey, "apple_pass": .wallet,
        "google_pass": .wallet, "scan": .scan,
    ]

    static let verdictWords: Set<String> = ["valid", "expired", "no_paid_period", "presentation_required", "revoked", "cannot_confirm"]

    private func events(_ history: MemberHistory, _ language: ChartLanguage) -> [MemberPanelBody.Event] {
        var events: [MemberPanelBody.Event] = [
            .init(at: history.standing.member.createdAt, kind: "joined", detail: texts.text("event.joined", language))
        ]
        for period in history.periods {
            let shop = period.vendorID.flatMap { history.vendorNames[$0] } ?? texts.text("chart.in_app", language)
            let values = ["months": language.integer(Int64(period.months)), "shop": shop, "amount": language.integer(Int64(period.amountDZD))]
            events.append(.init(at: period.purchasedAt, kind: "sale", detail: texts.text("event.sale", language, values)))
            if let cancelled = period.cancelledAt {
                events.append(.init(at: cancelled, kind: "cancellation", detail: texts.text("event.cancellation", language, values)))
            }
        }
        for change in history.changes where change.kind == "cards_revoked" || change.kind == "device_key" {
            events.append(.init(at: change.at, kind: change.kind, detail: texts.text("event.\(change.kind)", language)))
        }
        if let issued = history.applePassIssuedAt {
            let detail = texts.text("event.apple_pass", language, ["devices": language.integer(Int64(history.appleDevices))])
            events.append(.init(at: issued, kind: "apple_pass", detail: detail))
        }
        if let issued = history.googleObjectIssuedAt {
            events.append(.init(at: issued, kind: "google_pass", detail: texts.text("event.google_pass", language)))
        }
        for scan in history.scans {
            // The counters' verdict words: a card refused for its form or signature is "invalid".
            let word = Self.verdictWords.contains(scan.scan.verdict) ? scan.scan.verdict : "invalid"
            let values = ["verdict": texts.text("verdict.\(word)", language), "shop": scan.vendorName]
            events.append(.init(at: scan.scan.scannedAt, kind: "scan", detail: texts.text("event.scan", language, values)))
        }
        return events
    }
}
