public import Foundation

/// Apple Wallet passes issued for members' cards, the devices registered for their updates, and what those
/// devices log. A pass's serial number is its member's uuid; its authentication token never changes once given.
public protocol WalletStore: Sendable {
    /// Records that a pass of `member` was issued, and returns the pass's authentication token: the one it was
    /// first issued with (a pass already in Wallet keeps working), or `token` (hashing to `tokenHash`) for a
    /// new pass.
    func issueWalletPass(member: UUID, token: String, tokenHash: String, now: Int64) async throws -> String
    /// The stored token hash of `member`'s pass, nil when none was issued.
    func walletPassTokenHash(member: UUID) async throws -> String?
    /// Registers `device` for updates of `member`'s pass with `pushToken`. Registering again changes the push token
    /// in the same row (a device that registers hundreds of times costs one row); a pass takes at most
    /// ``WalletPassLimits/maxDevices`` devices.
    func registerWalletDevice(_ device: String, member: UUID, pushToken: String, now: Int64) async throws -> WalletDeviceRegistration
    /// Removes a registration; false when there was none.
    func unregisterWalletDevice(_ device: String, member: UUID) async throws -> Bool
    /// The passes `device` is registered for whose stamp is after `since` (all with nil), with each one's stamp.
    func walletPassesUpdated(device: String, since: Int64?) async throws -> [(member: UUID, changedAt: Int64)]
    /// The stamp of `member`'s pass: when what it shows last changed, in seconds, strictly increasing (a second
    /// change in one second is the next second), so `If-Modified-Since` never hides a change. Nil: no pass.
    func walletPassLastChange(member: UUID) async throws -> Int64?
    /// The devices registered for `member`'s pass and their push tokens.
    func walletRegistrations(member: UUID) async throws -> [(device: String, pushToken: String)]
    /// Leases, for `owner` until `now + leaseSeconds`, up to `limit` passes changed since all their devices were
    /// told and whose next attempt is due, each with its stamp (as `version`) and the devices not yet told of it.
    func leaseWalletUpdates(owner: String, now: Int64, leaseSeconds: Int64, limit: Int) async throws -> [WalletUpdate]
    /// Settles a leased update device by device: those `outcome` told are done with its stamp, the gone ones
    /// forgotten; with a retry the pass is tried again at `retryAt` for the devices still behind, else it is done.
    /// Only the lease's holder settles the pass.
    func settleWalletUpdate(_ update: WalletUpdate, owner: String, outcome: WalletPushOutcome, now: Int64) async throws
    /// Puts a renewal reminder on `member`'s Apple Wallet pass and makes the pass changed (its stamp moves, an
    /// update to push): Wallet shows the reminder as the coverage field's change message. False when the member
    /// has no pass with a registered device (nothing would show it).
    func putReminderOnWalletPass(member: UUID, reminder: WalletReminder, now: Int64) async throws -> Bool
    /// The reminder the member's pass shows, nil when none.
    func walletPassReminder(member: UUID) async throws -> WalletReminder?
    /// What a pass shows besides the card, read in one statement: the head of the member's ledger and their
    /// pass's token hash, stamp and reminder (nil each when no pass was issued); nil for an unknown member.
    func walletPassView(member: UUID) async throws -> WalletPassView?

    /// The outboxes at a glance, for monitoring: Apple passes and Google objects waiting, the oldest, the failing.
    func walletOutboxStatus() async throws -> WalletOutboxStatus

    /// Records that `member`'s Google Wallet save link was issued, showing the member at ledger version
    /// `shownVersion`: each change after that version is sent as an update of the object (one made between the
    /// read the link was made from and this record is sent too).
    func recordGoogleWalletObject(member: UUID, shownVersion: Int64, now: Int64) async throws
    /// As ``leaseWalletUpdates(owner:now:leaseSeconds:limit:)``, for Google Wallet objects (no registrations).
    func leaseGoogleWalletUpdates(owner: String, now: Int64, leaseSeconds: Int64, limit: Int) async throws -> [WalletUpdate]
    /// As ``settleWalletUpdate(_:owner:outcome:now:)``, for a Google Wallet object (one destination, no devices).
    func settleGoogleWalletUpdate(_ update: WalletUpdate, owner: String, retryAt: Int64?, error: String?, now: Int64) async throws

    /// Keeps log lines sent by devices, the newest ``WalletLog/kept`` only.
    func keepWalletLogs(_ lines: [String], now: Int64) async throws
    /// The newest kept log lines, newest first.
    func walletLogs(limit: Int) async throws -> [String]
}

/// What a member's Wallet pass shows besides the card, from one read (``WalletStore/walletPassView(member:)``).
public struct WalletPassView: Sendable, Hashable {
    public var head: LedgerHead
    /// The hash of the pass's authentication token; nil when no pass was issued.
    public var tokenHash: String?
    /// The pass's stamp (``WalletStore/walletPassLastChange(member:)``); nil when no pass was issued.
    public var lastChange: Int64?
    public var reminder: WalletReminder?

    public init(head: LedgerHead, tokenHash: String?, lastChange: Int64?, reminder: WalletReminder?) {
        self.head = head
        self.tokenHash = tokenHash
        self.lastChange = lastChange
        self.reminder = reminder
    }
}

/// A renewal reminder put on a pass: sent `threshold` (`7d`, `3d`, `1d`, `ended`) before the coverage that
/// ended at `coverageEnd`, so it is shown only while the card still shows that coverage.
public struct WalletReminder: Sendable, Hashable {
    public var threshold: String
    public var coverageEnd: Int64

    public init(threshold: String, coverageEnd: Int64) {
        self.threshold = threshold
        self.coverageEnd = coverageEnd
    }

    /// As the store keeps it: `threshold:coverageEnd`.
    public var storedText: String { "\(threshold):\(coverageEnd)" }

    /// The reminder the store kept as ``storedText``, nil for any other text.
    public init?(storedText text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, let end = Int64(parts[1]) else { return nil }
        self.init(threshold: String(parts[0]), coverageEnd: end)
    }
}

/// What registering a device for a pass came to.
public enum WalletDeviceRegistration: Sendable, Hashable {
    /// A new registration (Wallet: 201).
    case created
    /// The device was registered already; its push token is updated (200).
    case updated
    /// The pass has ``WalletPassLimits/maxDevices`` devices already: refused.
    case full
}

/// Bounds of a pass's devices.
public enum WalletPassLimits {
    /// Devices one pass takes (a member's phone, watch and tablet, and replacements, with room to spare): a pass
    /// shared past this is refused more, so no pass makes one update thousands of pushes.
    public static let maxDevices = 10
}

/// What pushing one update to its devices came to, device by device.
public struct WalletPushOutcome: Sendable, Hashable {
    /// Devices APNs accepted the push for.
    public var told: [String] = []
    /// Devices whose push token is dead: forgotten.
    public var gone: [String] = []
    /// When to try again for the devices not told (nil: none left behind), and the last reason.
    public var retryAt: Int64?
    public var error: String?

    public init(told: [String] = [], gone: [String] = [], retryAt: Int64? = nil, error: String? = nil) {
        self.told = told
        self.gone = gone
        self.retryAt = retryAt
        self.error = error
    }
}

/// One Wallet outbox at a glance.
public struct WalletOutboxCounts: Sendable, Hashable {
    /// Passes (Apple) or objects (Google) held.
    public var total: Int
    /// Those whose latest change has not reached every device (or Google) yet.
    public var waiting: Int
    /// When the longest-waiting one changed (nil: none waits).
    public var oldestWaitingSince: Int64?
    /// Those whose last attempt failed, and one such reason.
    public var failing: Int
    public var lastError: String?

    public init(total: Int, waiting: Int, oldestWaitingSince: Int64?, failing: Int, lastError: String?) {
        self.total = total
        self.waiting = waiting
        self.oldestWaitingSince = oldestWaitingSince
        self.failing = failing
        self.lastError = lastError
    }
}

/// Both Wallet outboxes, and the devices registered for Apple passes.
public struct WalletOutboxStatus: Sendable, Hashable {
    public var apple: WalletOutboxCounts
    public var appleDevices: Int
    public var google: WalletOutboxCounts

    public init(apple: WalletOutboxCounts, appleDevices: Int, google: WalletOutboxCounts) {
        self.apple = apple
        self.appleDevices = appleDevices
        self.google = google
    }
}

/// Bounds of what Wallet devices send.
public enum WalletLog {
    /// Log lines kept in all.
    public static let kept = 10_000
    /// Lines one request may carry.
    public static let maxPerRequest = 100
    /// Characters kept of one line.
    public static let maxLineLength = 1_000
}

/// A pass (or Google object) changed since it was last pushed: push to each registration.
public struct WalletUpdate: Sendable, Hashable {
    public var member: UUID
    /// What the push announces: the pass's stamp (Apple), the member's ledger version (Google).
    public var version: Int64
    /// Attempts made so far (for the backoff).
    public var attempts: Int64
    /// The registered devices not yet told of this update, with their push tokens (Apple).
    public var registrations: [WalletRegistration]

    public init(member: UUID, version: Int64, attempts: Int64, registrations: [WalletRegistration]) {
        self.member = member
        self.version = version
        self.attempts = attempts
        self.registrations = registrations
    }
}

/// A device registered for a pass's updates.
public struct WalletRegistration: Sendable, Hashable {
    public var device: String
    public var pushToken: String

    public init(device: String, pushToken: String) {
        self.device = device
        self.pushToken = pushToken
    }
}
