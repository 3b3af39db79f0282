public import Foundation
import PeezBasics

/// One paid period of membership.
public struct SubscriptionPeriod: Sendable, Hashable, Codable {
    /// Where a period was sold.
    public enum Source: String, Sendable, Codable {
        case vendor
        case inApp = "in_app"
    }

    /// Where a period stands at a given moment.
    public enum Status: String, Sendable, Codable {
        case scheduled, active, expired, cancelled
    }

    public var id: UUID
    public var memberUUID: UUID
    public var months: Int
    /// Cash paid, in Algerian dinars.
    public var amountDZD: Int
    public var source: Source
    /// The shop that sold it, for `vendor` periods.
    public var vendorID: UUID?
    /// When it was bought: periods are laid end to end in this order.
    public var purchasedAt: Int64
    public var startsAt: Int64
    public var endsAt: Int64
    public var cancelledAt: Int64?

    public init(
        id: UUID,
        memberUUID: UUID,
        months: Int,
        amountDZD: Int,
        source: Source,
        vendorID: UUID?,
        purchasedAt: Int64,
        startsAt: Int64,
        endsAt: Int64,
        cancelledAt: Int64? = nil
    ) {
        self.id = id
        self.memberUUID = memberUUID
        self.months = months
        self.amountDZD = amountDZD
        self.source = source
        self.vendorID = vendorID
        self.purchasedAt = purchasedAt
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.cancelledAt = cancelledAt
    }

    /// The status at `now`.
    public func status(at now: Int64) -> Status {
        if cancelledAt != nil { return .cancelled }
        if now < startsAt { return .scheduled }
        if now < endsAt { return .active }
        return .expired
    }
}

/// The price list and the rules of a purchase.
public enum Pricing {
    /// Dinars per month.
    public static let monthlyPriceDZD = 300
    /// How many months one purchase may cover.
    public static let allowedMonths = 1...3

    /// Checks months and cash together, naming each problem.
    public static func validate(months: Int, amountDZD: Int) throws(MembershipError) {
        guard allowedMonths.contains(months) else {
            throw MembershipError(.invalidFields, "The activation is invalid.", fields: ["months": "must be 1, 2 or 3"])
        }
        guard amountDZD == monthlyPriceDZD * months else {
            throw MembershipError(
                .invalidFields,
                "The activation is invalid.",
                fields: ["amount_dzd": "must be \(monthlyPriceDZD * months) DZD for \(months) month(s), not \(amountDZD)"]
            )
        }
    }
}

/// Lays a member's periods end to end: paid time is never lost or counted twice.
public enum CoverageSchedule {
    /// How many days of paid time are left at `now` when it ends at `end`, as the counter and the app show
    /// it: a day begun counts whole, so a card shows 1 on its last day until the moment it ends, and 0 after.
    public static func daysLeft(until end: Int64, now: Int64) -> Int {
        end > now ? Int((end - now + 86_399) / 86_400) : 0
    }

    /// `periods` must be in purchase order. Each live period starts at the later of its purchase and the end
    /// of the live one before it, and lasts its months (anchored, clamped month arithmetic in Algiers).
    /// Cancelled periods keep their dates but take no room, so the periods after them move back.
    public static func laidOut(_ periods: [SubscriptionPeriod]) -> [SubscriptionPeriod] {
        var previousEnd: Int64 = .min
        return periods.map { period in
            guard period.cancelledAt == nil else { return period }
            var laid = period
            laid.startsAt = max(period.purchasedAt, previousEnd)
            laid.endsAt = AlgiersCalendar.adding(months: period.months, to: laid.startsAt)
            previousEnd = laid.endsAt
            return laid
        }
    }

    /// A period bought after every period of a laid-out schedule whose paid time ends at `coverageEnd`, placed
    /// where ``laidOut(_:)`` would put it: at the later of its purchase and that end. The periods already laid
    /// out do not move, so a sale needs only the coverage end, not the whole history.
    public static func placed(_ period: SubscriptionPeriod, after coverageEnd: Int64?) -> SubscriptionPeriod {
        var laid = period
        laid.startsAt = max(period.purchasedAt, coverageEnd ?? .min)
        laid.endsAt = AlgiersCalendar.adding(months: period.months, to: laid.startsAt)
        return laid
    }

    /// The end of the member's paid time: the end of the last live period, or nil when there is none.
    public static func coverageEnd(_ periods: [SubscriptionPeriod]) -> Int64? {
        periods.filter { $0.cancelledAt == nil }.map(\.endsAt).max()
    }
}
