public import Foundation

/// Something the team records on a shop's account by hand: a remittance, an adjustment or a reversal.
public struct TeamEntryDraft: Sendable, Hashable {
    public enum Body: Sendable, Hashable {
        /// Cash handed over on `receivedDay`; `override` allows more than the shop owes.
        case remittance(amountDZD: Int64, receivedDay: Int64, method: RemittanceMethod, reference: String, receivedBy: String, override: Bool)
        /// A correction, signed as it moves what the shop owes.
        case adjustment(amountDZD: Int64, reason: String)
        /// Undoes the remittance or adjustment numbered `entry`.
        case reversal(entry: Int64, reason: String)
    }

    public var vendorID: UUID
    public var body: Body
    /// The request's key: the same request again records nothing more and answers the entry first recorded.
    public var key: IdempotencyKey
    /// Who records it, as the entry names them.
    public var recordedBy: String
    /// The audit entry, written in the same transaction.
    public var audit: AuditEntry

    public init(vendorID: UUID, body: Body, key: IdempotencyKey, recordedBy: String, audit: AuditEntry) {
        self.vendorID = vendorID
        self.body = body
        self.key = key
        self.recordedBy = recordedBy
        self.audit = audit
    }
}

/// A shop's account as the team's list shows it.
public struct ShopBalance: Sendable, Hashable {
    public var vendorID: UUID
    /// What the shop owes now (negative: PEEZ owes the shop).
    public var balanceDZD: Int64
    /// Every entry's figures summed.
    public var totals: ShopDayFigures
    /// The day of the oldest sale whose cash is not yet remitted, paying the oldest first; nil when nothing is owed.
    public var oldestUnremittedDay: Int64?

    public init(vendorID: UUID, balanceDZD: Int64, totals: ShopDayFigures, oldestUnremittedDay: Int64?) {
        self.vendorID = vendorID
        self.balanceDZD = balanceDZD
        self.totals = totals
        self.oldestUnremittedDay = oldestUnremittedDay
    }

    /// The oldest unremitted day of an account whose days are `days` (in day order) and whose balance is
    /// `balance`: remittances, commission and cancellations pay the oldest cash first, so what is still owed is the
    /// cash of the latest days whose additions make up the balance.
    public static func oldestUnremittedDay(balance: Int64, days: [(day: Int64, added: Int64)]) -> Int64? {
        guard balance > 0 else { return nil }
        var owed = balance
        for day in days.reversed() where day.added > 0 {
            owed -= day.added
            if owed <= 0 { return day.day }
        }
        return days.first(where: { $0.added > 0 })?.day
    }
}

/// The shops' cash accounts: entries appended by sales and cancellations in their own transactions, by the team
/// through ``recordTeamEntry(_:now:)``; read back as days, entries and balances.
public protocol ShopAccountStore: Sendable {
    /// Records `draft` once per key, with its audit entry, in one transaction that reads the shop's balance for
    /// its guard while no other team entry of the shop can commit. Throws a ``MembershipError``: `notFound` (no
    /// such shop or entry), `invalidFields` (more than owed, an entry that cannot be reversed or is reversed
    /// already), `idempotencyKeyReused`.
    func recordTeamEntry(_ draft: TeamEntryDraft, now: Int64) async throws -> (entry: ShopEntry, replayed: Bool)
    /// The shop's balance before `day` (every entry of earlier days).
    func shopBalance(of vendorID: UUID, before day: Int64) async throws -> Int64
    /// The shop's figures per day from `fromDay` to `toDay` (inclusive), days with entries only, in day order.
    func shopDays(of vendorID: UUID, from fromDay: Int64, to toDay: Int64) async throws -> [ShopDayFigures]
    /// The shop's entries from `fromDay` to `toDay` (inclusive) of `kinds`, in order.
    func shopEntries(of vendorID: UUID, from fromDay: Int64, to toDay: Int64, kinds: Set<ShopEntry.Kind>) async throws -> [ShopEntry]
    /// The shop's entries after `seq`, oldest first, at most `limit`.
    func shopEntries(of vendorID: UUID, after seq: Int64, limit: Int) async throws -> [ShopEntry]
    /// Every shop's balance, in vendor order; shops without entries are left out.
    func shopBalances() async throws -> [ShopBalance]
    /// The balance at the end of each day from `fromDay` to `toDay` of the `count` shops owing most at the end of
    /// `toDay` (ties by vendor id), for the console's plot: per shop, the days whose balance moved, in order, with
    /// the balance at the end of that day (and the balance before the range on `fromDay`, when it had days before).
    func shopBalanceHistory(from fromDay: Int64, to toDay: Int64, owingMost count: Int) async throws -> [UUID: [(day: Int64, balanceDZD: Int64)]]
    /// Sets what the shop keeps from `commission.fromDay` on (replacing one set for that same day), with its
    /// audit entry, in one transaction.
    func setCommission(_ commission: ShopCommission, of vendorID: UUID, audit: AuditEntry) async throws
    /// The shop's commissions, by first day.
    func commissions(of vendorID: UUID) async throws -> [ShopCommission]
    /// The balance past which the team wants a shop shown in its list; nil when none is set.
    func balanceLimit() async throws -> Int64?
    /// Sets the team's balance limit (nil: none), with its audit entry, in one transaction.
    func setBalanceLimit(_ limitDZD: Int64?, audit: AuditEntry) async throws
}
