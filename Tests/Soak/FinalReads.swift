public import PeezAPI

/// What a run reads once its faults are over, besides the members' subscriptions: every payment as the service
/// has it and as Chargily's stand-in has it, the revocation list the counters sync, and the console's sales
/// panel over the run's days.
public struct FinalReads: Sendable {
    /// One shop's line of the console's sales panel (`vendor` nil: sales in the app).
    public struct SalesLine: Codable, Sendable, Equatable {
        public var vendor_id: String?
        public var sales: Int64
        public var months: Int64
        public var amount_dzd: Int64
        public var cancelled: Int64

        public init(vendor_id: String?, sales: Int64, months: Int64, amount_dzd: Int64, cancelled: Int64) {
            self.vendor_id = vendor_id
            self.sales = sales
            self.months = months
            self.amount_dzd = amount_dzd
            self.cancelled = cancelled
        }
    }

    /// The console's sales panel as read: its days, in Algiers, and its lines.
    public struct SalesPanel: Codable, Sendable {
        public var from: String
        public var to: String
        public var shops: [SalesLine]

        public init(from: String, to: String, shops: [SalesLine]) {
            self.from = from
            self.to = to
            self.shops = shops
        }
    }

    /// The renewal reminders once the last run settled them: the ledger's count of each state (`peez remind
    /// status`), the ids the receiver took (each once) and how many deliveries it took again.
    public struct Reminders: Sendable {
        public var states: [String: Int]
        public var received: [String]
        public var duplicates: Int

        public init(states: [String: Int], received: [String], duplicates: Int) {
            self.states = states
            self.received = received
            self.duplicates = duplicates
        }
    }

    /// A shop's account as read: every entry, and its statement over the run's days.
    public struct ShopAccount: Sendable {
        public var entries: [ShopEntryBody]
        public var statement: ShopStatementBody

        public init(entries: [ShopEntryBody], statement: ShopStatementBody) {
            self.entries = entries
            self.statement = statement
        }
    }

    public var payments: [PaymentBody]
    /// Chargily's checkouts: id → status.
    public var gateway: [String: String]
    /// The revocation list: membership id → every card issued before this time (Unix seconds) is revoked.
    public var revokedBefore: [String: Int64]
    /// Member uuid → membership id.
    public var membershipIDs: [String: String]
    public var sales: SalesPanel?
    /// Every scan the service stored for the run's members.
    public var scans: [ReportedScanBody]?
    public var reminders: Reminders?
    /// Each shop's account, by shop id.
    public var accounts: [String: ShopAccount]?

    public init(
        payments: [PaymentBody] = [],
        gateway: [String: String] = [:],
        revokedBefore: [String: Int64] = [:],
        membershipIDs: [String: String] = [:],
        sales: SalesPanel? = nil,
        scans: [ReportedScanBody]? = nil,
        reminders: Reminders? = nil,
        accounts: [String: ShopAccount]? = nil
    ) {
        self.payments = payments
        self.gateway = gateway
        self.revokedBefore = revokedBefore
        self.membershipIDs = membershipIDs
        self.sales = sales
        self.scans = scans
        self.reminders = reminders
        self.accounts = accounts
    }
}
