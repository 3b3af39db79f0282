public import Foundation

/// One line of a shop's cash account with PEEZ: append-only, never edited or removed. A mistake is put right by
/// a new entry (a sale by its cancellation, a remittance or adjustment by a reversal naming it).
///
/// Amounts are whole dinars, signed as they move what the shop owes: a sale adds the cash it collected, its
/// cancellation takes it back, a remittance takes off what was handed over. `commissionDZD` is the part of a
/// sale the shop keeps (taken back with its cancellation). What an entry adds to the balance is
/// ``balanceChange``.
public struct ShopEntry: Sendable, Hashable {
    /// What kind of entry.
    public enum Kind: String, Sendable, CaseIterable {
        /// A membership sold at the shop's counter: cash collected for PEEZ.
        case sale
        /// A sale cancelled: its cash (and its commission) taken back.
        case cancellation
        /// Cash handed over to the team.
        case remittance
        /// A correction with a reason, either way.
        case adjustment
        /// A remittance or adjustment recorded by mistake, undone.
        case reversal
    }

    /// Its place in the shop's account (and every account's: numbers are shared), from 1.
    public var seq: Int64
    public var vendorID: UUID
    public var kind: Kind
    /// When it was recorded.
    public var recordedAt: Int64
    /// The Algiers day it belongs to (``AlgiersCalendar/dayNumber(_:)``): a sale's or cancellation's day, the day
    /// a remittance was received, the day an adjustment or reversal was recorded.
    public var day: Int64
    public var amountDZD: Int64
    public var commissionDZD: Int64
    /// Months sold (sales and cancellations).
    public var months: Int64
    /// The period a sale or cancellation is of, and its member.
    public var periodID: UUID?
    public var memberUUID: UUID?
    /// A remittance's method, reference and receiver.
    public var method: RemittanceMethod?
    public var reference: String?
    public var receivedBy: String?
    /// Why an adjustment or reversal was made.
    public var reason: String?
    /// The entry a reversal undoes.
    public var reverses: Int64?
    /// Who recorded a team entry (the credential's label, or "peez admin (<user>)").
    public var recordedBy: String?

    public init(
        seq: Int64,
        vendorID: UUID,
        kind: Kind,
        recordedAt: Int64,
        day: Int64,
        amountDZD: Int64,
        commissionDZD: Int64 = 0,
        months: Int64 = 0,
        periodID: UUID? = nil,
        memberUUID: UUID? = nil,
        method: RemittanceMethod? = nil,
        reference: String? = nil,
        receivedBy: String? = nil,
        reason: String? = nil,
        reverses: Int64? = nil,
        recordedBy: String? = nil
    ) {
        self.seq = seq
        self.vendorID = vendorID
        self.kind = kind
        self.recordedAt = recordedAt
        self.day = day
        self.amountDZD = amountDZD
        self.commissionDZD = commissionDZD
        self.months = months
        self.periodID = periodID
        self.memberUUID = memberUUID
        self.method = method
        self.reference = reference
        self.receivedBy = receivedBy
        self.reason = reason
        self.reverses = reverses
        self.recordedBy = recordedBy
    }

    /// What this entry adds to what the shop owes.
    public var balanceChange: Int64 { amountDZD - commissionDZD }
}

/// How a shop handed cash over.
public enum RemittanceMethod: String, Sendable, CaseIterable, Codable {
    case cash
    /// Algérie Poste's postal cheque account.
    case ccp
    /// Algérie Poste's mobile payments.
    case baridimob
    case bankTransfer = "bank_transfer"
}

/// What a shop keeps of each sale from a day on: a share of the cash, or a fixed amount per month sold (never more
/// than the sale). No commission is both zero.
public struct ShopCommission: Sendable, Hashable {
    /// The first Algiers day it applies to (``AlgiersCalendar/dayNumber(_:)``).
    public var fromDay: Int64
    /// A share of each sale, in hundredths of a percent (500 is 5 %).
    public var basisPoints: Int64
    /// Dinars per month sold.
    public var perMonthDZD: Int64
    public var setAt: Int64
    public var setBy: String

    public init(fromDay: Int64, basisPoints: Int64, perMonthDZD: Int64, setAt: Int64, setBy: String) {
        self.fromDay = fromDay
        self.basisPoints = basisPoints
        self.perMonthDZD = perMonthDZD
        self.setAt = setAt
        self.setBy = setBy
    }

    /// The most a share may be: all of the sale.
    public static let maxBasisPoints: Int64 = 10_000
    /// The most per month sold: a month's price many times over would be a typing mistake.
    public static let maxPerMonthDZD: Int64 = 10_000

    /// The commission on a sale of `months` for `amountDZD`: the share rounded to the nearest dinar (halves up),
    /// or the fixed amount per month, at most the sale. The stores compute the same in SQL
    /// (a test holds them together).
    public func commission(amountDZD: Int64, months: Int64) -> Int64 {
        if perMonthDZD > 0 { return min(perMonthDZD * months, amountDZD) }
        return (amountDZD * basisPoints + 5_000) / 10_000
    }
}

/// A shop's figures for one Algiers day: what its entries of that day add up to, by kind. Cancellations and
/// remittances are counted as positive amounts taken off; adjustments (reversals included) are signed.
public struct ShopDayFigures: Sendable, Hashable {
    public var day: Int64
    public var sales: Int64 = 0
    public var salesDZD: Int64 = 0
    public var cancellations: Int64 = 0
    public var cancellationsDZD: Int64 = 0
    public var commissionDZD: Int64 = 0
    public var remittedDZD: Int64 = 0
    public var adjustedDZD: Int64 = 0

    public init(
        day: Int64,
        sales: Int64 = 0,
        salesDZD: Int64 = 0,
        cancellations: Int64 = 0,
        cancellationsDZD: Int64 = 0,
        commissionDZD: Int64 = 0,
        remittedDZD: Int64 = 0,
        adjustedDZD: Int64 = 0
    ) {
        self.day = day
        self.sales = sales
        self.salesDZD = salesDZD
        self.cancellations = cancellations
        self.cancellationsDZD = cancellationsDZD
        self.commissionDZD = commissionDZD
        self.remittedDZD = remittedDZD
        self.adjustedDZD = adjustedDZD
    }

    /// The figures of one entry, on its day.
    public init(_ entry: ShopEntry) {
        self.init(day: entry.day, commissionDZD: entry.commissionDZD)
        switch entry.kind {
        case .sale: (sales, salesDZD) = (1, entry.amountDZD)
        case .cancellation: (cancellations, cancellationsDZD) = (1, -entry.amountDZD)
        case .remittance: remittedDZD = -entry.amountDZD
        case .adjustment, .reversal: adjustedDZD = entry.amountDZD
        }
    }

    /// Cash collected for memberships, net of cancellations.
    public var grossDZD: Int64 { salesDZD - cancellationsDZD }
    /// What the day adds to what the shop owes.
    public var balanceChange: Int64 { grossDZD - commissionDZD - remittedDZD + adjustedDZD }

    /// Both days' figures added (the day is this one's).
    public func adding(_ other: ShopDayFigures) -> ShopDayFigures {
        ShopDayFigures(
            day: day,
            sales: sales + other.sales,
            salesDZD: salesDZD + other.salesDZD,
            cancellations: cancellations + other.cancellations,
            cancellationsDZD: cancellationsDZD + other.cancellationsDZD,
            commissionDZD: commissionDZD + other.commissionDZD,
            remittedDZD: remittedDZD + other.remittedDZD,
            adjustedDZD: adjustedDZD + other.adjustedDZD
        )
    }
}
