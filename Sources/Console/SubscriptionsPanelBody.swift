/// The subscription figures over a range of days (Docs/console.md, "Subscription figures"), as of today: a range
/// that ends later is cut at today.
public struct SubscriptionsPanelBody: Codable, Sendable, Equatable {
    /// Members and dinars moved.
    public struct Movement: Codable, Sendable, Equatable {
        public var members: Int64
        public var dzd: Int64
    }

    /// Monthly recurring revenue on the day before the range and on its last day, and what moved it: paid time
    /// that began (new, renewed, returning) and ended. `end_dzd = start_dzd + new + renewed + returning - ended`.
    public struct Revenue: Codable, Sendable, Equatable {
        public var start_dzd: Int64
        public var start_members: Int64
        public var end_dzd: Int64
        public var end_members: Int64
        public var new: Movement
        public var renewed: Movement
        public var returning: Movement
        public var ended: Movement
        /// Of the paid times that ended in the range: not renewed within the grace window, which has passed.
        public var lapsed: Movement
        /// Of the paid times that ended in the range: not renewed yet, still within the grace window.
        public var in_grace: Movement
    }

    /// Of the members whose paid time ended on the range's days whose grace window has passed (`from`…`through`),
    /// those who did not pay again within it.
    public struct Churn: Codable, Sendable, Equatable {
        /// The last day counted (absent: none has passed its grace window yet).
        public var through: String?
        public var due: Movement
        public var renewed: Movement
        public var lapsed: Movement
        /// lapsed / due, in members and in dinars; absent when nobody was due.
        public var rate: Double?
        public var revenue_rate: Double?
    }

    /// Members who first paid in one month, and how many of them had paid time on the last day of each month since
    /// (today for the current month).
    public struct Cohort: Codable, Sendable, Equatable {
        /// `YYYY-MM`.
        public var month: String
        public var members: Int64
        /// Members with paid time at the end of the cohort's month, the month after, …
        public var active: [Int64]
        /// active / members.
        public var retention: [Double]
    }

    /// The sales of one length over the range, by class.
    public struct Mix: Codable, Sendable, Equatable {
        public var months: Int64
        public var sales: Int64
        public var amount_dzd: Int64
        public var new: Int64
        public var renewed: Int64
        public var returning: Int64
        /// sales / all sales of the range.
        public var share: Double
    }

    /// The reminders of one channel and threshold delivered over the range, and the renewals they brought back.
    public struct ReminderEffect: Codable, Sendable, Equatable {
        public var channel: String
        /// `7d`, `3d`, `1d` or `ended`.
        public var threshold: String
        public var delivered: Int64
        public var renewed: Int64
        /// renewed / delivered.
        public var rate: Double?
    }

    public var from: String
    /// The range's last day counted: its `to`, or today if that is earlier.
    public var to: String
    public var grace_days: Int64
    public var reminder_window_days: Int64
    public var revenue: Revenue
    public var churn: Churn
    /// The cohorts of the twelve months that end with the month of `to`, oldest first.
    public var cohorts: [Cohort]
    public var mix: [Mix]
    public var reminders: [ReminderEffect]
    /// Monthly recurring revenue per day, in DZD.
    public var chart: String
}
