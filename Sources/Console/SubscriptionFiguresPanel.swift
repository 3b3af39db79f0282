import Membership
import PeezBasics

/// The subscription figures computed from the summary's rows (Docs/console.md, "Subscription figures"): the
/// revenue bridge, churn, cohorts, the mix of lengths and what reminders bring back. Pure: the rows in, the figures
/// out.
struct SubscriptionFiguresPanel {
    /// The first and last days counted, and today (what the grace window is measured from).
    let first: Int64
    let last: Int64
    let today: Int64
    /// The first day of the oldest cohort shown: the rows must cover it and the range.
    let cohortStart: Int64

    /// The panel for `range` as of `today`: cut at today, with the cohorts of the twelve months that end with its
    /// last month.
    init(range: ConsoleDays, today: Int64) {
        last = min(range.last, today)
        first = min(range.first, last)
        self.today = today
        cohortStart = AlgiersCalendar.firstDay(ofMonth: AlgiersCalendar.month(ofDay: last), adding: -11)
    }

    /// The first day the rows must start on.
    var readFrom: Int64 { min(first, cohortStart) }

    /// The figures from the rows read from ``readFrom`` to ``last`` (`before`: the cohorted rows before it), and the
    /// monthly recurring revenue of each day of the range.
    func body(before: [SubscriptionRow], rows: [SubscriptionRow]) -> (body: SubscriptionsPanelBody, revenueByDay: [Int64]) {
        let grace = SubscriptionFigures.graceDays
        let settledThrough = today - grace - 1
        var running = Self.sum(before.filter(Self.isRevenue))
        var revenueByDay: [Int64] = []
        var starts: [String: Movement] = [:]
        var ended = Movement()
        var lapsed = Movement()
        var inGrace = Movement()
        var due = Movement()
        var renewedDue = Movement()
        let byDay = Dictionary(grouping: rows.filter(Self.isRevenue), by: \.day)
        var start = running
        for day in readFrom...last {
            let dayRows = byDay[day] ?? []
            if day == first { start = running }
            running = running + Self.sum(dayRows)
            guard day >= first else { continue }
            revenueByDay.append(running.dzd)
            let endedToday = Self.sum(dayRows.filter { $0.kind == SubscriptionFigures.Movement.end }).negated
            let renewedToday = Self.sum(dayRows.filter { $0.kind == SubscriptionFigures.Movement.startPrefix + "renewed" })
            for row in dayRows where row.kind.hasPrefix(SubscriptionFigures.Movement.startPrefix) {
                starts[String(row.kind.dropFirst(SubscriptionFigures.Movement.startPrefix.count)), default: Movement()].add(row)
            }
            ended = ended + endedToday
            let unrenewed = endedToday - renewedToday
            if day <= settledThrough {
                lapsed = lapsed + unrenewed
                due = due + endedToday
                renewedDue = renewedDue + renewedToday
            } else {
                inGrace = inGrace + unrenewed
            }
        }
        let body = SubscriptionsPanelBody(
            from: AlgiersCalendar.dayText(first),
            to: AlgiersCalendar.dayText(last),
            grace_days: grace,
            reminder_window_days: SubscriptionFigures.reminderWindowDays,
            revenue: .init(
                start_dzd: start.dzd,
                start_members: start.members,
                end_dzd: running.dzd,
                end_members: running.members,
                new: starts["new", default: Movement()].body,
                renewed: starts["renewed", default: Movement()].body,
                returning: starts["returning", default: Movement()].body,
                ended: ended.body,
                lapsed: lapsed.body,
                in_grace: inGrace.body
            ),
            churn: .init(
                through: first <= settledThrough ? AlgiersCalendar.dayText(min(last, settledThrough)) : nil,
                due: due.body,
                renewed: renewedDue.body,
                lapsed: lapsed.body,
                rate: Self.ratio(lapsed.members, due.members),
                revenue_rate: Self.ratio(lapsed.dzd, due.dzd)
            ),
            cohorts: cohorts(before: before, rows: rows),
            mix: mix(rows.filter { $0.day >= first && $0.kind.hasPrefix(SubscriptionFigures.Movement.salePrefix) }),
            reminders: reminders(rows.filter { $0.day >= first && $0.kind.hasPrefix("reminder.") }),
            chart: ""
        )
        return (body, revenueByDay)
    }

    /// Each cohort of the twelve months: its members (their first paid time began in it) and those with paid time at
    /// the end of each month since.
    private func cohorts(before: [SubscriptionRow], rows: [SubscriptionRow]) -> [SubscriptionsPanelBody.Cohort] {
        let lastMonth = AlgiersCalendar.month(ofDay: last)
        let revenue = (before + rows).filter(Self.isRevenue)
        let byCohort = Dictionary(grouping: revenue, by: \.cohort)
        return (0..<12).map { offset -> SubscriptionsPanelBody.Cohort in
            let firstDay = AlgiersCalendar.firstDay(ofMonth: AlgiersCalendar.month(ofDay: cohortStart), adding: Int64(offset))
            let cohort = AlgiersCalendar.month(ofDay: firstDay)
            let cohortRows = (byCohort[cohort] ?? []).sorted { $0.day < $1.day }
            let members = cohortRows.filter { $0.kind == SubscriptionFigures.Movement.startPrefix + "new" }.reduce(0) { $0 + $1.members }
            var active: [Int64] = []
            var index = 0
            var running: Int64 = 0
            for month in 0..<Int64(12 - offset)
            where AlgiersCalendar.month(ofDay: AlgiersCalendar.firstDay(ofMonth: cohort, adding: month)) <= lastMonth {
                let monthEnd = min(AlgiersCalendar.firstDay(ofMonth: cohort, adding: month + 1) - 1, last)
                while index < cohortRows.count, cohortRows[index].day <= monthEnd {
                    running += cohortRows[index].members
                    index += 1
                }
                active.append(running)
            }
            return .init(
                month: String(AlgiersCalendar.dayText(firstDay).prefix(7)),
                members: members,
                active: active,
                retention: active.map { members > 0 ? Double($0) / Double(members) : 0 }
            )
        }
    }

    /// The sales of the range by length (1, 2, 3 months) and class.
    private func mix(_ rows: [SubscriptionRow]) -> [SubscriptionsPanelBody.Mix] {
        let total = rows.reduce(Int64(0)) { $0 + $1.members }
        let byLength: [Int64: [SubscriptionRow]] = Dictionary(grouping: rows) { Int64($0.detail) ?? 0 }
        return byLength.keys.sorted().compactMap { months -> SubscriptionsPanelBody.Mix? in
            let rows = byLength[months]!
            func sales(_ saleClass: SubscriptionFigures.SaleClass) -> Int64 {
                let kind = SubscriptionFigures.Movement.salePrefix + saleClass.rawValue
                return rows.filter { $0.kind == kind }.reduce(Int64(0)) { $0 + $1.members }
            }
            let sold = rows.reduce(Int64(0)) { $0 + $1.members }
            let amount = rows.reduce(Int64(0)) { $0 + $1.dzd }
            guard sold != 0 || amount != 0 else { return nil }
            return SubscriptionsPanelBody.Mix(
                months: months,
                sales: sold,
                amount_dzd: amount,
                new: sales(.new),
                renewed: sales(.renewed),
                returning: sales(.returning),
                share: Self.ratio(sold, total) ?? 0
            )
        }
    }

    /// The reminders delivered over the range by channel and threshold, and the renewals they brought back.
    private func reminders(_ rows: [SubscriptionRow]) -> [SubscriptionsPanelBody.ReminderEffect] {
        var sums: [String: (delivered: Int64, renewed: Int64)] = [:]
        for row in rows {
            var sum = sums[row.detail, default: (0, 0)]
            if row.kind == "reminder.delivered" { sum.delivered += row.members } else { sum.renewed += row.members }
            sums[row.detail] = sum
        }
        return sums.keys.sorted().map { detail in
            let parts = detail.split(separator: " ", maxSplits: 1).map(String.init)
            let sum = sums[detail]!
            return .init(
                channel: parts.first ?? "",
                threshold: parts.count > 1 ? parts[1] : "",
                delivered: sum.delivered,
                renewed: sum.renewed,
                rate: Self.ratio(sum.renewed, sum.delivered)
            )
        }
    }

    private static func isRevenue(_ row: SubscriptionRow) -> Bool { row.cohort != 0 }

    private static func ratio(_ part: Int64, _ whole: Int64) -> Double? { whole != 0 ? Double(part) / Double(whole) : nil }

    private static func sum(_ rows: [SubscriptionRow]) -> Movement {
        rows.reduce(Movement()) { sum, row in
            var sum = sum
            sum.add(row)
            return sum
        }
    }

    /// Members and dinars, summed.
    struct Movement {
        var members: Int64 = 0
        var dzd: Int64 = 0

        mutating func add(_ row: SubscriptionRow) {
            members += row.members
            dzd += row.dzd
        }

        var negated: Movement { Movement(members: -members, dzd: -dzd) }
        var body: SubscriptionsPanelBody.Movement { .init(members: members, dzd: dzd) }

        static func + (left: Movement, right: Movement) -> Movement { Movement(members: left.members + right.members, dzd: left.dzd + right.dzd) }
        static func - (left: Movement, right: Movement) -> Movement { left + right.negated }
    }
}
