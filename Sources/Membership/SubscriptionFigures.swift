import PeezBasics

/// The figures a subscription business reads (Docs/console.md, "Subscription figures"), as each member's live
/// periods determine them: what the write path adds to the summaries for a sale, and takes away and adds again for
/// a change that cancels periods. Days are Algiers day numbers (``AlgiersCalendar/dayNumber(_:)``).
///
/// Every live period counts:
/// - its sale, on the day it was bought, by class and months (`sale.new`, `sale.renewed`, `sale.returning`);
/// - its monthly revenue (`amountDZD / months`) from the day its paid time began (`start.<class>`) to the day it
///   ends (`end`), with the member, in the member's cohort: monthly recurring revenue on a day is the sum of those
///   rows up to that day. A renewal's paid time counts from the end it renews, so a member who pays again within
///   the grace window is counted without a gap.
public enum SubscriptionFigures {
    /// Days after a paid time ends in which paying again counts as renewing it, not as returning.
    public static let graceDays: Int64 = 7
    /// Days after a reminder is delivered in which a renewal of the paid time it was about counts as brought back.
    public static let reminderWindowDays: Int64 = 7

    /// What a sale was to the member: the first paid time, paid time renewed within the grace window, or paid
    /// time after a lapse.
    public enum SaleClass: String, Sendable, CaseIterable {
        case new, renewed, returning

        /// The class of a sale bought at `purchasedAt` after a paid time that ended (or was to end) at `renewsEnd`.
        public static func of(purchasedAt: Int64, renewsEnd: Int64?) -> SaleClass {
            guard let renewsEnd else { return .new }
            return AlgiersCalendar.dayNumber(purchasedAt) <= AlgiersCalendar.dayNumber(renewsEnd) + graceDays ? .renewed : .returning
        }
    }

    /// One row a period adds to the summaries: on `day`, under `kind` (and `detail`), members and dinars.
    public struct Movement: Sendable, Hashable {
        public var day: Int64
        /// `start.<class>`, `end` (counted in the member's cohort) or `sale.<class>`.
        public var kind: String
        /// The months sold, for a sale; empty otherwise.
        public var detail: String
        public var members: Int64
        public var dzd: Int64

        public init(day: Int64, kind: String, detail: String, members: Int64, dzd: Int64) {
            self.day = day
            self.kind = kind
            self.detail = detail
            self.members = members
            self.dzd = dzd
        }

        /// Whether the row counts in the member's cohort (the revenue and its members), not in cohort 0 (sales).
        public var isCohorted: Bool { !kind.hasPrefix(Self.salePrefix) }

        public static let startPrefix = "start."
        public static let salePrefix = "sale."
        public static let end = "end"

        /// The row with its members and dinars negated: what taking it back adds.
        public var negated: Movement { Movement(day: day, kind: kind, detail: detail, members: -members, dzd: -dzd) }
    }

    /// The rows of one period renewing the paid time that ended (or was to end) at `renewsEnd` (nil: the member's
    /// first live period).
    public static func movements(of period: SubscriptionPeriod, renewsEnd: Int64?) -> [Movement] {
        let saleClass = SaleClass.of(purchasedAt: period.purchasedAt, renewsEnd: renewsEnd)
        let rate = Int64(period.amountDZD / max(period.months, 1))
        let start = saleClass == .renewed ? renewsEnd ?? period.startsAt : period.startsAt
        return [
            Movement(
                day: AlgiersCalendar.dayNumber(period.purchasedAt),
                kind: Movement.salePrefix + saleClass.rawValue,
                detail: String(period.months),
                members: 1,
                dzd: Int64(period.amountDZD)
            ),
            Movement(day: AlgiersCalendar.dayNumber(start), kind: Movement.startPrefix + saleClass.rawValue, detail: "", members: 1, dzd: rate),
            Movement(day: AlgiersCalendar.dayNumber(period.endsAt), kind: Movement.end, detail: "", members: -1, dzd: -rate),
        ]
    }

    /// What a member's ledger counts: each live period (in ledger order) renewing the end of the live one before
    /// it, and the member's cohort: the Algiers month (`YYYYMM`) of their earliest live sale (nil: none).
    public static func figures(of periods: [SubscriptionPeriod]) -> (cohortMonth: Int64?, movements: [Movement], renewals: [Renewal]) {
        var movements: [Movement] = []
        var renewals: [Renewal] = []
        var previousEnd: Int64?
        var first: Int64?
        for period in periods where period.cancelledAt == nil {
            movements += Self.movements(of: period, renewsEnd: previousEnd)
            if let previousEnd { renewals.append(Renewal(renewsEnd: previousEnd, purchasedAt: period.purchasedAt)) }
            first = min(first ?? period.purchasedAt, period.purchasedAt)
            previousEnd = period.endsAt
        }
        return (first.map { AlgiersCalendar.month(ofDay: AlgiersCalendar.dayNumber($0)) }, movements, renewals)
    }

    /// A live sale that paid again for a paid time: which end it renewed, when it was bought (what a reminder
    /// about that end is credited with, see ``reminderWindowDays``).
    public struct Renewal: Sendable, Hashable {
        public var renewsEnd: Int64
        public var purchasedAt: Int64

        public init(renewsEnd: Int64, purchasedAt: Int64) {
            self.renewsEnd = renewsEnd
            self.purchasedAt = purchasedAt
        }
    }
}
