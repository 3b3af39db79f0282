public import Foundation

/// The summaries the console's panels read, kept by the write path (per Algiers day, see
/// ``AlgiersCalendar/dayNumber(_:)``). Days are Algiers day numbers, both ends included.
public protocol ConsoleSummaryStore: Sendable {
    /// Each shop's sales summed over the days (``SalesDay/day`` is `from`).
    func salesByShop(from: Int64, to: Int64) async throws -> [SalesDay]
    /// The sales of each day of the shops named (nil: sold in the app, at most 50), and of all shops by day.
    func salesDays(from: Int64, to: Int64, shops: [UUID?]) async throws -> (shops: [SalesDay], totals: [Int64: Int64])
    func coverageDays(from: Int64, to: Int64) async throws -> [CoverageDay]
    func reminderDays(from: Int64, to: Int64) async throws -> [OutcomeDay]
    func pushDays(from: Int64, to: Int64) async throws -> [OutcomeDay]
    /// The open reminders of each channel: how many, and when the most overdue was due.
    func reminderOutbox() async throws -> [ReminderOutbox]
    /// Wallet at a glance, from the tallies the write path keeps and two partial indexes.
    func walletTallies() async throws -> WalletTallies
    /// The cards seen at two shops at most ten minutes apart (or one presentation at two counters of a shop), in
    /// pairs of valid scans whose later scan is at `from` or after and before `until`, kept as scans are
    /// reported: each card once, with its closest pair (the most recent of equals), the `cards` cards last seen
    /// so most recently first.
    func closestSharedSightings(from: Int64, until: Int64, cards: Int) async throws -> [SharedCardSighting]
    /// The subscription figures' rows (``SubscriptionFigures``) of the days `from`…`to`, summed by day, kind, cohort
    /// and detail; and the rows counted by cohort before `from`, summed by kind and cohort (their day is `from - 1`).
    func subscriptionDays(from: Int64, to: Int64) async throws -> (before: [SubscriptionRow], days: [SubscriptionRow])
}

/// Members and dinars summed under one day, kind, cohort and detail of the subscription figures.
public struct SubscriptionRow: Sendable, Hashable {
    public var day: Int64
    /// `sale.<class>`, `start.<class>`, `end`, `reminder.delivered` or `reminder.renewed`.
    public var kind: String
    /// The month of the members' earliest live sale, `YYYYMM`; 0 for sales and reminders.
    public var cohort: Int64
    /// The months of a sale, or the `<channel> <threshold>` of a reminder; empty otherwise.
    public var detail: String
    public var members: Int64
    public var dzd: Int64

    public init(day: Int64, kind: String, cohort: Int64, detail: String, members: Int64, dzd: Int64) {
        self.day = day
        self.kind = kind
        self.cohort = cohort
        self.detail = detail
        self.members = members
        self.dzd = dzd
    }
}

/// What the console looks up: members by a search and one member's history, the newest audit entries.
public protocol ConsoleLookupStore: Sendable {
    /// Members whose membership id or phone is `query`, or whose name starts with it (any case), by name.
    func searchMembers(_ query: MemberSearch, limit: Int) async throws -> [MemberStanding]
    /// The members holding these membership ids.
    func memberStandings(membershipIDs: [String]) async throws -> [MemberStanding]
    /// The member's ledger, Wallet and changes (``MemberHistory/scans`` left empty).
    func memberHistory(uuid: UUID) async throws -> MemberHistory?
    /// The newest entries of the audit trail made at `from` or after and before `until`, newest first.
    func audit(from: Int64, until: Int64, limit: Int) async throws -> [AuditEntry]
}

/// The vendors' devices as the console lists them, and the syncs that date them.
public protocol CounterDeviceStore: Sendable {
    /// Every vendor device's credential, its shop, its last sync.
    func counterDevices() async throws -> [CounterDevice]
    /// Records that a vendor device fetched its counter bundle at `time`.
    func noteCounterSync(credentialID: UUID, at time: Int64) async throws
}

/// The console's one-time sign-in links and the sessions they open, each change with its audit entry.
public protocol ConsoleSessionStore: Sendable {
    /// Stores a one-time sign-in link and `audit` (who made it) in one transaction.
    func saveConsoleLink(_ link: ConsoleGrant, audit: AuditEntry) async throws
    /// Signs in with the link whose code hashes to `linkHash`, used up now: a session stored under `sessionHash`
    /// until `expiresAt`, for the link's person, with its `console.sign_in` audit entry, in one transaction; nil
    /// (nothing written) if the link is unknown, used or expired.
    func openConsoleSession(linkHash: String, sessionHash: String, address: String, now: Int64, expiresAt: Int64) async throws -> ConsoleGrant?
    /// The session whose id hashes to `hash`, if it has not ended or expired and the credential it was made
    /// from (if any) is still active.
    func consoleSession(hash: String, now: Int64) async throws -> ConsoleGrant?
    /// Ends the session, with its `console.sign_out` audit entry from `address`, in one transaction; a session
    /// already ended or unknown changes nothing.
    func endConsoleSession(hash: String, now: Int64, address: String) async throws
}

/// One shop's sales on one day (vendor nil: sales in the app), net of cancellations.
public struct SalesDay: Sendable, Hashable {
    public var day: Int64
    public var vendorID: UUID?
    public var vendorName: String?
    public var sales: Int64
    public var months: Int64
    public var amountDZD: Int64
    public var cancelled: Int64

    public init(day: Int64, vendorID: UUID?, vendorName: String?, sales: Int64, months: Int64, amountDZD: Int64, cancelled: Int64) {
        self.day = day
        self.vendorID = vendorID
        self.vendorName = vendorName
        self.sales = sales
        self.months = months
        self.amountDZD = amountDZD
        self.cancelled = cancelled
    }
}

/// One day's ends of paid time: members whose paid time ends that day now, and sales that renewed a paid time
/// that ended (or was to end) that day.
public struct CoverageDay: Sendable, Hashable {
    public var day: Int64
    public var ending: Int64
    public var renewed: Int64

    public init(day: Int64, ending: Int64, renewed: Int64) {
        self.day = day
        self.ending = ending
        self.renewed = renewed
    }
}

/// How many reminders (by channel) or pushes (by platform) ended one day with one outcome.
public struct OutcomeDay: Sendable, Hashable {
    public var day: Int64
    public var source: String
    public var outcome: String
    public var count: Int64

    public init(day: Int64, source: String, outcome: String, count: Int64) {
        self.day = day
        self.source = source
        self.outcome = outcome
        self.count = count
    }
}

/// The reminders of a channel waiting to be delivered.
public struct ReminderOutbox: Sendable, Hashable {
    public var channel: String
    public var waiting: Int64
    public var oldestDueAt: Int64?

    public init(channel: String, waiting: Int64, oldestDueAt: Int64?) {
        self.channel = channel
        self.waiting = waiting
        self.oldestDueAt = oldestDueAt
    }
}

/// Wallet at a glance.
public struct WalletTallies: Sendable, Hashable {
    public var applePasses: Int64
    public var appleDevices: Int64
    public var googleObjects: Int64
    /// Apple passes whose latest change has not reached every device yet.
    public var appleWaiting: Int64
    /// Google Wallet objects whose last update failed (to be tried again).
    public var googleFailing: Int64

    public init(applePasses: Int64, appleDevices: Int64, googleObjects: Int64, appleWaiting: Int64, googleFailing: Int64) {
        self.applePasses = applePasses
        self.appleDevices = appleDevices
        self.googleObjects = googleObjects
        self.appleWaiting = appleWaiting
        self.googleFailing = googleFailing
    }
}

/// A vendor device: its credential, its shop's name, when it last fetched its trust data.
public struct CounterDevice: Sendable, Hashable {
    public var credential: APICredential
    public var vendorName: String
    public var lastSyncAt: Int64?

    public init(credential: APICredential, vendorName: String, lastSyncAt: Int64?) {
        self.credential = credential
        self.vendorName = vendorName
        self.lastSyncAt = lastSyncAt
    }
}

/// A member as a list shows it: who, paid until when, cards valid from when.
public struct MemberStanding: Sendable, Hashable {
    public var member: Member
    public var coverageEnd: Int64?
    public var cardsValidFrom: Int64

    public init(member: Member, coverageEnd: Int64?, cardsValidFrom: Int64) {
        self.member = member
        self.coverageEnd = coverageEnd
        self.cardsValidFrom = cardsValidFrom
    }
}

/// One member's history, for a timeline.
public struct MemberHistory: Sendable {
    public var standing: MemberStanding
    public var periods: [SubscriptionPeriod]
    /// Shop names by vendor id, for the periods.
    public var vendorNames: [UUID: String]
    /// The ledger's changes in order: kind (`activation`, `cancellation`, `device_key`, `cards_revoked`, …) and time.
    public var changes: [(kind: String, at: Int64)]
    public var applePassIssuedAt: Int64?
    public var appleDevices: Int
    public var googleObjectIssuedAt: Int64?
    /// The member's latest scans, newest first.
    public var scans: [ReportedScan]

    public init(
        standing: MemberStanding,
        periods: [SubscriptionPeriod],
        vendorNames: [UUID: String],
        changes: [(kind: String, at: Int64)],
        applePassIssuedAt: Int64?,
        appleDevices: Int,
        googleObjectIssuedAt: Int64?,
        scans: [ReportedScan]
    ) {
        self.standing = standing
        self.periods = periods
        self.vendorNames = vendorNames
        self.changes = changes
        self.applePassIssuedAt = applePassIssuedAt
        self.appleDevices = appleDevices
        self.googleObjectIssuedAt = googleObjectIssuedAt
        self.scans = scans
    }
}

/// Who a console link or session acts for: the name written in the audit trail, the admin credential it came
/// from (nil: the operator at the command line), and until when.
public struct ConsoleGrant: Sendable, Hashable {
    /// The link's code or the session's id, hashed.
    public var hash: String
    public var actor: String
    public var actorCredentialID: UUID?
    public var createdAt: Int64
    public var expiresAt: Int64

    public init(hash: String, actor: String, actorCredentialID: UUID?, createdAt: Int64, expiresAt: Int64) {
        self.hash = hash
        self.actor = actor
        self.actorCredentialID = actorCredentialID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
