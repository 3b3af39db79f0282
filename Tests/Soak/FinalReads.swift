public import PeezAPI

/// What a run reads once its faults are over, besides the members' subscriptions: every payment as the service
/// has it and as Chargily's stand-in has it, the revocation list the counters sync, the console's sales panel over
/// the run's days, the reminders, the shops' accounts and Apple Wallet.
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

    /// Apple Wallet once the run's changes were pushed: every push the APNs stand-in took, the updates the ledger
    /// still had waiting, and each phone's pass as it fetched it last.
    public struct Wallet: Sendable {
        public struct Push: Sendable {
            public var token: String
            /// Seconds since the run began.
            public var at: Double
            public var status: Int

            public init(token: String, at: Double, status: Int) {
                self.token = token
                self.at = at
                self.status = status
            }
        }

        public struct Phone: Sendable {
            public var device: String
            public var member: String
            /// The member's name as the service has it, and as the pass the phone fetched shows it.
            public var memberName: String?
            public var passName: String?

            public init(device: String, member: String, memberName: String?, passName: String?) {
                self.device = device
                self.member = member
                self.memberName = memberName
                self.passName = passName
            }
        }

        public var pushes: [Push]
        /// What `peez wallet status` counted waiting (nil: it could not be read).
        public var waiting: Int?
        public var phones: [Phone]

        public init(pushes: [Push], waiting: Int?, phones: [Phone]) {
            self.pushes = pushes
            self.waiting = waiting
            self.phones = phones
        }
    }

    /// Google Wallet once the run's changes were sent: the objects Google holds and the updates it took.
    public struct GoogleWallet: Sendable {
        /// An object as Google holds it and its member as the service has them, each as "name until end".
        public struct Object: Sendable {
            public var member: String
            public var shown: String
            public var ledger: String

            public init(member: String, shown: String, ledger: String) {
                self.member = member
                self.shown = shown
                self.ledger = ledger
            }
        }

        /// An object's update (a patch, or an insert of an object Google did not hold) and its answer.
        public struct Update: Sendable {
            public var member: String
            /// Seconds since the run began.
            public var at: Double
            public var status: Int

            public init(member: String, at: Double, status: Int) {
                self.member = member
                self.at = at
                self.status = status
            }
        }

        /// What `peez wallet status` counted waiting (nil: it could not be read).
        public var waiting: Int?
        public var objects: [Object]
        public var updates: [Update]

        public init(waiting: Int?, objects: [Object], updates: [Update]) {
            self.waiting = waiting
            self.objects = objects
            self.updates = updates
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
    public var wallet: Wallet?
    public var googleWallet: GoogleWallet?

    public init(
        payments: [PaymentBody] = [],
        gateway: [String: String] = [:],
        revokedBefore: [String: Int64] = [:],
        membershipIDs: [String: String] = [:],
        sales: SalesPanel? = nil,
        scans: [ReportedScanBody]? = nil,
        reminders: Reminders? = nil,
        accounts: [String: ShopAccount]? = nil,
        wallet: Wallet? = nil,
        googleWallet: GoogleWallet? = nil
    ) {
        self.payments = payments
        self.gateway = gateway
        self.revokedBefore = revokedBefore
        self.membershipIDs = membershipIDs
        self.sales = sales
        self.scans = scans
        self.reminders = reminders
        self.accounts = accounts
        self.wallet = wallet
        self.googleWallet = googleWallet
    }
}
