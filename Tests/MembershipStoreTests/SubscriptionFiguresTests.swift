import CardServices
import ConsoleAssets
import ConsoleCharts
import Foundation
import Membership
import PeezBasics
import Testing

@testable import Console
@testable import MembershipSQL

/// The subscription figures the console shows (Docs/console.md, "Subscription figures"), kept by the write path,
/// equal what a direct computation over the ledger's periods and the reminders gives, after random sales,
/// cancellations, lapses, returns and reminders, folded or not, and after a rebuild.
@Suite("Subscription figures", .serialized)
struct SubscriptionFiguresTests {
    @Test(arguments: StoreKind.available)
    func everyFigureEqualsADirectComputationOverTheLedgerAfterRandomSalesCancellationsAndReminders(kind: StoreKind) async throws {
        try await kind.withStore { store in
            var random = try await RandomLedger(store: store, shops: 3, members: 8)
            var now = Sample.january31
            for step in 0..<220 {
                // Hours to a week pass: members lapse, renew early, renew in the grace window, return later.
                now += Int64.random(in: 3_600...(86_400 * 7), using: &random.generator)
                if step % 15 == 0 {
                    // Someone joins now and then, so that every month has its cohort.
                    random.members.append(try await store.createMember(Sample.draft(random.members.count), now: now).member)
                    try await random.sell(random.members.last!, now: now)
                }
                let member = random.anyMember()
                switch Int.random(in: 0..<20, using: &random.generator) {
                case 0..<10: try await random.sell(member, now: now)
                case 10..<13: try await random.cancelAnyPeriod(of: member, now: now)
                case 13: try await random.revokeCards(of: member, now: now)
                default: try await Self.deliverReminders(store, now: now, using: &random.generator)
                }
                if step % 37 == 0 { _ = try await store.foldConsoleSummaries() }
            }
            let desk = random.desk
            let members = random.members
            let console = ConsoleService(store: store, texts: try ConsoleTexts(json: ConsoleAssets.consoleTexts), clock: desk.clock.wallClock)
            desk.clock.set(now)
            let today = AlgiersCalendar.dayNumber(now)
            let ledger = try await Direct(store: store, members: members)
            #expect(ledger.periods.count > 60 && ledger.periods.contains { $0.cancelledAt != nil } && !ledger.reminders.isEmpty)
            let ranges = [
                ConsoleDays(first: today - 365, last: today), ConsoleDays(first: today - 120, last: today - 60),
                ConsoleDays(first: today - 9, last: today + 20), ConsoleDays(first: today - 700, last: today - 400),
            ]
            func panels() async throws -> [SubscriptionsPanelBody] {
                try await ranges.asyncMap { range in
                    var panel = try await console.subscriptions(range, .en)
                    #expect(panel.chart.hasPrefix("<svg"))
                    panel.chart = ""
                    return panel
                }
            }
            let kept = try await panels()
            for (range, panel) in zip(ranges, kept) {
                let expected = ledger.panel(range, today: today)
                #expect(panel == expected, "\(range)")
                let revenue = panel.revenue
                #expect(revenue.end_dzd == revenue.start_dzd + revenue.new.dzd + revenue.renewed.dzd + revenue.returning.dzd - revenue.ended.dzd)
            }
            #expect(kept[0].revenue.new.members > 0 && kept[0].revenue.renewed.members > 0 && kept[0].churn.due.members > 0)
            _ = try await store.foldConsoleSummaries()
            #expect(try await panels() == kept)
            try await store.rebuildConsoleSummaries()
            #expect(try await panels() == kept)
            // Each member's cohort, as sales read it with the ledger's head, is the month of the earliest live sale.
            let cohorts = try await store.database.read { db in
                try await db.query("SELECT uuid, cohort_month FROM members", []).map { (try $0.text("uuid"), try $0.optionalInt("cohort_month")) }
            }
            let expectedCohorts = ledger.paid.mapValues { Direct.month(ofDay: Direct.day($0.map(\.period.purchasedAt).min()!)) }
            for (uuid, cohort) in cohorts {
                let expected = expectedCohorts[UUID(uuidString: uuid)!]
                #expect(cohort.map { String(format: "%04d-%02d", $0 / 100, $0 % 100) } == expected, "\(uuid)")
            }
            // Migration 024 fills the summary and the cohorts from a ledger that had neither, as the write path keeps them.
            let migration = Migration024.statements(store.database.dialect, appendKey: "")
            try await store.database.write { db in
                try await db.execute("DELETE FROM subscription_days")
                try await db.execute("UPDATE members SET cohort_month = NULL")
                try await db.execute(migration[1])
                try await db.execute(migration.last!)
            }
            #expect(try await panels() == kept)
            let filled = try await store.database.read { db in
                try await db.query("SELECT uuid, cohort_month FROM members", []).map { (try $0.text("uuid"), try $0.optionalInt("cohort_month")) }
            }
            #expect(filled.sorted { $0.0 < $1.0 }.map { "\($0.0) \($0.1 ?? 0)" } == cohorts.sorted { $0.0 < $1.0 }.map { "\($0.0) \($0.1 ?? 0)" })
        }
    }

    /// A renewal bought within the grace window counts the member's revenue without a gap, a later one as returning;
    /// a reminder is credited with a renewal bought after it, and its cancellation takes the credit back.
    @Test(arguments: StoreKind.available)
    func aRenewalInTheGraceWindowKeepsTheRevenueAndItsReminderIsCreditedUntilItIsCancelled(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let desk = try SaleDesk(store: store)
            let (vendor, member) = try await Sample.vendorAndMember(in: store)
            let first = try await desk.sell(member, vendor: vendor, months: 1, now: Sample.january31)
            let end = first.coverageEnd
            // The 1-day reminder, delivered a day before the end; the member pays again 3 days after the end.
            #expect(try await store.recordDueReminders(channel: "push", now: end - 86_400, batchSeconds: 3_600) == 1)
            let leased = try await store.leaseReminders(channel: "push", owner: "a", limit: 10, now: end - 86_400, leaseSeconds: 60)
            _ = try await store.settleReminders(leased.map { ($0.reminder, .delivered) }, owner: "a", schedule: RetrySchedule(), now: end - 86_400)
            let renewal = try await desk.sell(member, vendor: vendor, months: 2, now: end + 3 * 86_400)
            let console = ConsoleService(store: store, texts: try ConsoleTexts(json: ConsoleAssets.consoleTexts), clock: desk.clock.wallClock)
            let endDay = AlgiersCalendar.dayNumber(end)
            desk.clock.set(end + 30 * 86_400)
            let days = ConsoleDays(first: endDay - 2, last: endDay + 5)
            var panel = try await console.subscriptions(days, .en)
            #expect(panel.revenue.start_dzd == 300 && panel.revenue.end_dzd == 300 && panel.revenue.renewed.members == 1)
            #expect(panel.churn.due.members == 1 && panel.churn.lapsed.members == 0 && panel.churn.rate == 0)
            #expect(panel.reminders.map { "\($0.channel) \($0.threshold) \($0.delivered) \($0.renewed)" } == ["push 1d 1 1"])
            #expect(panel.mix.map { "\($0.months) \($0.renewed)" } == ["2 1"])
            _ = try await MemberChangeService(ledger: store, clock: desk.clock.wallClock).cancelPeriod(id: renewal.period.id)
            panel = try await console.subscriptions(days, .en)
            #expect(panel.revenue.end_dzd == 0 && panel.churn.lapsed.members == 1 && panel.churn.rate == 1)
            #expect(panel.reminders.map { "\($0.channel) \($0.threshold) \($0.delivered) \($0.renewed)" } == ["push 1d 1 0"])
            // Paying eight days after the end is returning: the days between count no revenue.
            desk.clock.set(end + 8 * 86_400)
            _ = try await desk.sell(member, vendor: vendor, months: 1, now: end + 8 * 86_400)
            desk.clock.set(end + 30 * 86_400)
            panel = try await console.subscriptions(ConsoleDays(first: endDay + 1, last: endDay + 8), .en)
            #expect(panel.revenue.start_dzd == 0 && panel.revenue.returning.members == 1 && panel.revenue.end_dzd == 300)
        }
    }

    /// Records the reminders due at `now`, leases them and settles most as delivered.
    static func deliverReminders(_ store: SQLMembershipStore, now: Int64, using generator: inout SystemRandomNumberGenerator) async throws {
        for channel in ["push", "wallet"] {
            _ = try await store.recordDueReminders(channel: channel, now: now, batchSeconds: 86_400)
            let leased = try await store.leaseReminders(channel: channel, owner: "test", limit: 100, now: now, leaseSeconds: 60)
            let outcomes = leased.map { due -> (Reminder, ReminderOutcome) in
                (due.reminder, Int.random(in: 0..<5, using: &generator) == 0 ? .failed("410 Gone") : .delivered)
            }
            _ = try await store.settleReminders(outcomes, owner: "test", schedule: RetrySchedule(), now: now)
        }
    }
}

/// The figures computed straight from the definitions in Docs/console.md over every period and delivered reminder,
/// day by day, with Foundation's calendar for the months: nothing of the summaries' code.
struct Direct {
    let periods: [SubscriptionPeriod]
    let reminders: [Reminder]
    /// Each member's live periods in ledger order, with the day its revenue starts and its class.
    let paid: [UUID: [PaidTime]]

    static let grace: Int64 = 7
    static let reminderWindow: Int64 = 7 * 86_400

    init(store: SQLMembershipStore, members: [Member]) async throws {
        var periods: [SubscriptionPeriod] = []
        var paid: [UUID: [PaidTime]] = [:]
        for member in members {
            let ledger = try await store.periods(memberUUID: member.uuid)
            periods += ledger
            var previous: SubscriptionPeriod?
            for period in ledger where period.cancelledAt == nil {
                let saleClass: String
                var start = Self.day(period.startsAt)
                if let previous {
                    if Self.day(period.purchasedAt) <= Self.day(previous.endsAt) + Self.grace {
                        saleClass = "renewed"
                        start = Self.day(previous.endsAt)
                    } else {
                        saleClass = "returning"
                    }
                } else {
                    saleClass = "new"
                }
                paid[member.uuid, default: []].append(
                    PaidTime(period: period, start: start, end: Self.day(period.endsAt), saleClass: saleClass, renewsEnd: previous?.endsAt)
                )
                previous = period
            }
        }
        self.periods = periods
        self.paid = paid
        reminders = try await store.reminders(in: [.delivered], limit: 100_000)
    }

    static let algiers: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Africa/Algiers")!
        return calendar
    }()
    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// The Algiers day number of a time, through Foundation's Africa/Algiers calendar.
    static func day(_ time: Int64) -> Int64 {
        let parts = algiers.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: TimeInterval(time)))
        return Int64(utc.date(from: parts)!.timeIntervalSince1970) / 86_400
    }

    /// `YYYY-MM` of an Algiers day number.
    static func month(ofDay day: Int64) -> String {
        let parts = utc.dateComponents([.year, .month], from: Date(timeIntervalSince1970: TimeInterval(day * 86_400 + 43_200)))
        return String(format: "%04d-%02d", parts.year!, parts.month!)
    }

    /// The last day of the month of `day` (an Algiers day number).
    static func lastDayOfMonth(_ day: Int64) -> Int64 {
        var next = day
        while month(ofDay: next + 1) == month(ofDay: day) { next += 1 }
        return next
    }

    var intervals: [PaidTime] {
        paid.values.flatMap { $0 }
    }

    func covered(_ day: Int64) -> (members: Int64, dzd: Int64) {
        let covering = intervals.filter { $0.start <= day && day < $0.end }
        return (Int64(covering.count), covering.reduce(Int64(0)) { $0 + $1.rate })
    }

    func panel(_ range: ConsoleDays, today: Int64) -> SubscriptionsPanelBody {
        let last = min(range.last, today)
        let first = min(range.first, last)
        let settled = today - Self.grace - 1
        func movement(_ list: [PaidTime]) -> SubscriptionsPanelBody.Movement {
            SubscriptionsPanelBody.Movement(members: Int64(list.count), dzd: list.reduce(Int64(0)) { $0 + $1.rate })
        }
        let all = intervals
        let started = all.filter { (first...last).contains($0.start) }
        let ended = all.filter { (first...last).contains($0.end) }
        // An end is renewed when the member's next live period renewed it.
        let renewedEnds = Set(
            all.filter { $0.saleClass == "renewed" }.compactMap { interval in interval.renewsEnd.map { "\(interval.period.memberUUID) \($0)" } }
        )
        let unrenewed = ended.filter { !renewedEnds.contains("\($0.period.memberUUID) \($0.period.endsAt)") }
        let due = ended.filter { $0.end <= settled }
        let lapsed = unrenewed.filter { $0.end <= settled }
        let dueRenewed = due.filter { renewedEnds.contains("\($0.period.memberUUID) \($0.period.endsAt)") }
        let start = covered(first - 1)
        let end = covered(last)
        func rate(_ part: Int64, _ whole: Int64) -> Double? { whole != 0 ? Double(part) / Double(whole) : nil }
        // Cohorts: the twelve months ending with the month of `last`.
        var cohortMonths: [String] = []
        var monthDay = last
        while cohortMonths.count < 12 {
            let name = Self.month(ofDay: monthDay)
            if cohortMonths.first != name { cohortMonths.insert(name, at: 0) }
            monthDay -= 1
        }
        // A member counts in the cohort of the month of the earliest live sale, once it is made (by `last`).
        let firstSales = paid.mapValues { intervals in Self.day(intervals.map(\.period.purchasedAt).min()!) }.filter { $0.value <= last }
        let cohortOf = firstSales.mapValues(Self.month(ofDay:))
        let cohorts = cohortMonths.enumerated().map { index, name -> SubscriptionsPanelBody.Cohort in
            let memberIDs = Set(cohortOf.filter { $0.value == name }.map(\.key))
            var active: [Int64] = []
            var cursor = (first - 800...last).first { Self.month(ofDay: $0) == name }!
            for _ in index..<12 {
                let monthEnd = min(Self.lastDayOfMonth(cursor), last)
                active.append(Int64(memberIDs.filter { id in paid[id]!.contains { $0.start <= monthEnd && monthEnd < $0.end } }.count))
                cursor = Self.lastDayOfMonth(cursor) + 1
                if cursor > last { break }
            }
            let members = Int64(memberIDs.count)
            let retention: [Double] = active.map { members > 0 ? Double($0) / Double(members) : 0 }
            return SubscriptionsPanelBody.Cohort(month: name, members: members, active: active, retention: retention)
        }
        let sold = all.filter { (first...last).contains(Self.day($0.period.purchasedAt)) }
        let byLength: [Int64: [PaidTime]] = Dictionary(grouping: sold) { Int64($0.period.months) }
        let mix = byLength.keys.sorted().map { months -> SubscriptionsPanelBody.Mix in
            let sales = byLength[months]!
            func count(_ saleClass: String) -> Int64 { Int64(sales.filter { $0.saleClass == saleClass }.count) }
            let amount = sales.reduce(Int64(0)) { $0 + Int64($1.period.amountDZD) }
            return SubscriptionsPanelBody.Mix(
                months: months,
                sales: Int64(sales.count),
                amount_dzd: amount,
                new: count("new"),
                renewed: count("renewed"),
                returning: count("returning"),
                share: Double(sales.count) / Double(sold.count)
            )
        }
        let delivered = reminders.filter { (first...last).contains(Self.day($0.deliveredAt!)) }
        let byReminder: [String: [Reminder]] = Dictionary(grouping: delivered) { "\($0.channel) \($0.threshold.rawValue)" }
        let effects = byReminder.keys.sorted().map { key -> SubscriptionsPanelBody.ReminderEffect in
            let list = byReminder[key]!
            var renewed: Int64 = 0
            for reminder in list {
                let deliveredAt = reminder.deliveredAt!
                renewed += Int64(
                    (paid[reminder.memberUUID] ?? []).filter { paidTime in
                        paidTime.renewsEnd == reminder.coverageEnd && paidTime.period.purchasedAt >= deliveredAt
                            && paidTime.period.purchasedAt <= deliveredAt + Self.reminderWindow
                    }.count
                )
            }
            return SubscriptionsPanelBody.ReminderEffect(
                channel: list[0].channel,
                threshold: list[0].threshold.rawValue,
                delivered: Int64(list.count),
                renewed: renewed,
                rate: rate(renewed, Int64(list.count))
            )
        }
        let churnLapsed = movement(lapsed)
        let churnDue = movement(due)
        return SubscriptionsPanelBody(
            from: AlgiersCalendar.dayText(first),
            to: AlgiersCalendar.dayText(last),
            grace_days: Self.grace,
            reminder_window_days: 7,
            revenue: .init(
                start_dzd: start.dzd,
                start_members: start.members,
                end_dzd: end.dzd,
                end_members: end.members,
                new: movement(started.filter { $0.saleClass == "new" }),
                renewed: movement(started.filter { $0.saleClass == "renewed" }),
                returning: movement(started.filter { $0.saleClass == "returning" }),
                ended: movement(ended),
                lapsed: movement(unrenewed.filter { $0.end <= settled }),
                in_grace: movement(unrenewed.filter { $0.end > settled })
            ),
            churn: .init(
                through: first <= settled ? AlgiersCalendar.dayText(min(last, settled)) : nil,
                due: churnDue,
                renewed: movement(dueRenewed),
                lapsed: churnLapsed,
                rate: rate(churnLapsed.members, churnDue.members),
                revenue_rate: rate(churnLapsed.dzd, churnDue.dzd)
            ),
            cohorts: cohorts,
            mix: mix,
            reminders: effects,
            chart: ""
        )
    }
}

/// A live period as the definitions count it: the day its revenue starts and ends, its class, the end it renews.
struct PaidTime {
    var period: SubscriptionPeriod
    var start: Int64
    var end: Int64
    var saleClass: String
    var renewsEnd: Int64?

    var rate: Int64 { Int64(period.amountDZD / period.months) }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var mapped: [T] = []
        for element in self { mapped.append(try await transform(element)) }
        return mapped
    }
}
