public import Foundation

/// A shop's account over a run of Algiers days: the balance it opened with, each day's figures and the balance
/// that closed it, the team's entries of the period one by one, and the period's totals (gross collected,
/// commission kept, net owed, remitted, adjusted).
public struct ShopStatement: Sendable, Hashable {
    /// One day of the statement, with the balance at its end.
    public struct Day: Sendable, Hashable {
        public var figures: ShopDayFigures
        public var closingDZD: Int64
    }

    public var vendor: Vendor
    public var fromDay: Int64
    public var toDay: Int64
    public var openingDZD: Int64
    /// The days with entries, in order.
    public var days: [Day]
    /// The remittances, adjustments and reversals of the period, in order.
    public var teamEntries: [ShopEntry]
    /// Every figure of the period summed (its day is `fromDay`).
    public var totals: ShopDayFigures
    public var closingDZD: Int64

    /// The statement of `vendor` from `fromDay` to `toDay` whose balance before `fromDay` was `openingDZD`.
    public init(vendor: Vendor, fromDay: Int64, toDay: Int64, openingDZD: Int64, days: [ShopDayFigures], teamEntries: [ShopEntry]) {
        self.vendor = vendor
        self.fromDay = fromDay
        self.toDay = toDay
        self.openingDZD = openingDZD
        self.teamEntries = teamEntries
        var balance = openingDZD
        var totals = ShopDayFigures(day: fromDay)
        self.days = days.map { figures in
            balance += figures.balanceChange
            totals = totals.adding(figures)
            return Day(figures: figures, closingDZD: balance)
        }
        self.totals = totals
        closingDZD = balance
    }

    /// The most days one statement covers: a year and a day, so a calendar year always fits.
    public static let maxDays: Int64 = 367
}
