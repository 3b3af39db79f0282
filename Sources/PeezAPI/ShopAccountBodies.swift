public import Foundation
public import Membership
import PeezBasics

extension RemittanceMethod: RequestChoice {}

/// `POST /v1/vendors/{id}/remittances`: cash a shop handed over, recorded once per Idempotency-Key.
public struct RemittanceRequest: APIRequest {
    public var amount_dzd: Int
    /// Only `DZD` (absent: DZD).
    public var currency: String?
    /// The Algiers day it was received, `YYYY-MM-DD` (absent: today); never a day to come.
    public var received_on: String?
    public var method: RemittanceMethod
    /// The receipt's, the transfer's or the CCP slip's number (absent for cash without one).
    public var reference: String?
    /// Who on the team received it.
    public var received_by: String
    /// true records more than the shop owes (it handed over in advance, or the account is wrong and will be
    /// adjusted).
    public var override: Bool?

    public init(
        amount_dzd: Int,
        currency: String? = nil,
        received_on: String? = nil,
        method: RemittanceMethod,
        reference: String? = nil,
        received_by: String,
        override: Bool? = nil
    ) {
        self.amount_dzd = amount_dzd
        self.currency = currency
        self.received_on = received_on
        self.method = method
        self.reference = reference
        self.received_by = received_by
        self.override = override
    }
}

/// `POST /v1/vendors/{id}/adjustments`: a correction with its reason, signed as it moves what the shop owes.
public struct AdjustmentRequest: APIRequest {
    public var amount_dzd: Int
    public var reason: String

    public init(amount_dzd: Int, reason: String) {
        self.amount_dzd = amount_dzd
        self.reason = reason
    }
}

/// `POST /v1/vendors/{id}/entries/{seq}/reversal`: undoes a remittance or adjustment recorded by mistake.
public struct ReversalRequest: APIRequest {
    public var reason: String
    public init(reason: String) { self.reason = reason }
}

/// `PUT /v1/vendors/{id}/commission`: what the shop keeps of each sale from a day on — a share in basis points
/// (500 is 5 %) or dinars per month sold; both absent or 0 for none.
public struct CommissionRequest: APIRequest {
    /// The first Algiers day it applies to, `YYYY-MM-DD`: a day to come (tomorrow at the earliest), so no sale
    /// already recorded is counted under it.
    public var from: String
    public var basis_points: Int?
    public var per_month_dzd: Int?

    public init(from: String, basis_points: Int? = nil, per_month_dzd: Int? = nil) {
        self.from = from
        self.basis_points = basis_points
        self.per_month_dzd = per_month_dzd
    }
}

/// One entry of a shop's account as the API shows it.
public struct ShopEntryBody: Codable, Sendable, Equatable {
    public var seq: Int64
    public var vendor_id: String
    /// `sale`, `cancellation`, `remittance`, `adjustment` or `reversal`.
    public var kind: String
    public var recorded_at: String
    /// The Algiers day it belongs to.
    public var date: String
    /// What it moves the cash collected by (remittances and cancellations negative).
    public var amount_dzd: Int64
    /// The commission it gives the shop (or takes back).
    public var commission_dzd: Int64
    /// What it moves the balance by: amount less commission.
    public var balance_change_dzd: Int64
    public var months: Int64?
    public var period_id: String?
    public var member_uuid: String?
    public var method: String?
    public var reference: String?
    public var received_by: String?
    public var reason: String?
    public var reverses: Int64?
    public var recorded_by: String?

    public init(_ entry: ShopEntry) {
        seq = entry.seq
        vendor_id = entry.vendorID.lowercasedText
        kind = entry.kind.rawValue
        recorded_at = AlgiersCalendar.iso8601(entry.recordedAt)
        date = AlgiersCalendar.dayText(entry.day)
        amount_dzd = entry.amountDZD
        commission_dzd = entry.commissionDZD
        balance_change_dzd = entry.balanceChange
        months = entry.months == 0 ? nil : entry.months
        period_id = entry.periodID?.lowercasedText
        member_uuid = entry.memberUUID?.lowercasedText
        method = entry.method?.rawValue
        reference = entry.reference
        received_by = entry.receivedBy
        reason = entry.reason
        reverses = entry.reverses
        recorded_by = entry.recordedBy
    }
}

/// `GET /v1/vendors/{id}/entries`: entries after a cursor, oldest first.
public struct ShopEntryListBody: Codable, Sendable {
    public var entries: [ShopEntryBody]
    public init(entries: [ShopEntryBody]) { self.entries = entries }
}

/// A day's (or a period's) figures.
public struct ShopFiguresBody: Codable, Sendable, Equatable {
    public var sales: Int64
    public var sales_dzd: Int64
    public var cancellations: Int64
    public var cancellations_dzd: Int64
    /// Sales less cancellations.
    public var gross_dzd: Int64
    /// Kept by the shop.
    public var commission_dzd: Int64
    /// Gross less commission: what the shop collected for PEEZ.
    public var net_dzd: Int64
    public var remitted_dzd: Int64
    public var adjusted_dzd: Int64

    public init(_ figures: ShopDayFigures) {
        sales = figures.sales
        sales_dzd = figures.salesDZD
        cancellations = figures.cancellations
        cancellations_dzd = figures.cancellationsDZD
        gross_dzd = figures.grossDZD
        commission_dzd = figures.commissionDZD
        net_dzd = figures.grossDZD - figures.commissionDZD
        remitted_dzd = figures.remittedDZD
        adjusted_dzd = figures.adjustedDZD
    }
}

/// A commission as the API shows it.
public struct CommissionBody: Codable, Sendable, Equatable {
    public var from: String
    public var basis_points: Int64
    public var per_month_dzd: Int64
    public var set_at: String
    public var set_by: String

    public init(_ commission: ShopCommission) {
        from = AlgiersCalendar.dayText(commission.fromDay)
        basis_points = commission.basisPoints
        per_month_dzd = commission.perMonthDZD
        set_at = AlgiersCalendar.iso8601(commission.setAt)
        set_by = commission.setBy
    }
}

/// `GET /v1/vendors/{id}/commission`: the shop's commissions by first day.
public struct CommissionListBody: Codable, Sendable {
    public var commissions: [CommissionBody]
    public init(commissions: [CommissionBody]) { self.commissions = commissions }
}

/// `GET /v1/vendors/{id}/account`: what a shop owes now, today's takings, and its last remittance.
public struct ShopAccountBody: Codable, Sendable, Equatable {
    public var vendor_id: String
    public var vendor_name: String
    public var currency: String
    public var balance_dzd: Int64
    /// The day of its oldest cash not yet remitted (absent when nothing is owed).
    public var oldest_unremitted_on: String?
    public var today: String
    public var today_figures: ShopFiguresBody
    public var last_remittance: ShopEntryBody?

    public init(vendor: Vendor, balance: Int64, oldestUnremittedDay: Int64?, today: ShopDayFigures, lastRemittance: ShopEntry?) {
        vendor_id = vendor.id.lowercasedText
        vendor_name = vendor.name
        currency = "DZD"
        balance_dzd = balance
        oldest_unremitted_on = oldestUnremittedDay.map(AlgiersCalendar.dayText)
        self.today = AlgiersCalendar.dayText(today.day)
        today_figures = ShopFiguresBody(today)
        last_remittance = lastRemittance.map(ShopEntryBody.init)
    }
}

/// One shop in the team's list of balances.
public struct ShopBalanceBody: Codable, Sendable, Equatable {
    public var vendor_id: String
    public var vendor_name: String
    public var neighbourhood: String
    public var balance_dzd: Int64
    public var oldest_unremitted_on: String?
    /// Days since the oldest unremitted cash (absent when nothing is owed).
    public var age_days: Int64?
    /// Whether the balance is past the limit asked for.
    public var over_limit: Bool
    public var totals: ShopFiguresBody

    public init(_ balance: ShopBalance, vendor: Vendor, today: Int64, limit: Int64?) {
        vendor_id = vendor.id.lowercasedText
        vendor_name = vendor.name
        neighbourhood = vendor.neighbourhood
        balance_dzd = balance.balanceDZD
        oldest_unremitted_on = balance.oldestUnremittedDay.map(AlgiersCalendar.dayText)
        age_days = balance.oldestUnremittedDay.map { today - $0 }
        over_limit = limit.map { balance.balanceDZD > $0 } ?? false
        totals = ShopFiguresBody(balance.totals)
    }
}

/// `GET /v1/accounts`: every shop's balance, largest first.
/// `PUT /v1/accounts/limit`: the balance past which the team wants a shop shown, for every member of the team.
public struct BalanceLimitRequest: APIRequest {
    /// Whole dinars; null: no limit. Required, so that a body without it removes nothing by mistake.
    public var limit_dzd: Int?

    public init(limit_dzd: Int?) { self.limit_dzd = limit_dzd }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.contains(.limit_dzd) else {
            (decoder as? FieldCheckingDecoder)?.note("limit_dzd", "is required: whole dinars, or null for no limit")
            limit_dzd = nil
            return
        }
        limit_dzd = try container.decodeIfPresent(Int.self, forKey: .limit_dzd)
    }
}

/// The team's balance limit.
public struct BalanceLimitBody: Codable, Sendable {
    /// Whole dinars; null: none set.
    public var limit_dzd: Int64?

    public init(limit_dzd: Int64?) { self.limit_dzd = limit_dzd }

    /// Encodes `limit_dzd` as null when none is set (the key is always there).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(limit_dzd, forKey: .limit_dzd)
    }
}

public struct ShopBalanceListBody: Codable, Sendable {
    public var currency: String
    public var limit_dzd: Int64?
    public var total_owed_dzd: Int64
    public var shops: [ShopBalanceBody]

    public init(limit: Int64?, shops: [ShopBalanceBody]) {
        currency = "DZD"
        limit_dzd = limit
        total_owed_dzd = shops.reduce(0) { $0 + $1.balance_dzd }
        self.shops = shops
    }
}

/// A shop's statement for a period, as JSON.
public struct ShopStatementBody: Codable, Sendable, Equatable {
    public struct Day: Codable, Sendable, Equatable {
        public var date: String
        public var figures: ShopFiguresBody
        public var closing_balance_dzd: Int64
    }

    public var vendor_id: String
    public var vendor_name: String
    public var from: String
    public var to: String
    public var currency: String
    public var opening_balance_dzd: Int64
    public var days: [Day]
    public var entries: [ShopEntryBody]
    public var totals: ShopFiguresBody
    public var closing_balance_dzd: Int64

    public init(_ statement: ShopStatement) {
        vendor_id = statement.vendor.id.lowercasedText
        vendor_name = statement.vendor.name
        from = AlgiersCalendar.dayText(statement.fromDay)
        to = AlgiersCalendar.dayText(statement.toDay)
        currency = "DZD"
        opening_balance_dzd = statement.openingDZD
        days = statement.days.map {
            Day(date: AlgiersCalendar.dayText($0.figures.day), figures: ShopFiguresBody($0.figures), closing_balance_dzd: $0.closingDZD)
        }
        entries = statement.teamEntries.map(ShopEntryBody.init)
        totals = ShopFiguresBody(statement.totals)
        closing_balance_dzd = statement.closingDZD
    }
}
