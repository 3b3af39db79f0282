public import Foundation

/// Apple Wallet passes issued for members' cards, the devices registered for their updates, and what those
/// devices log. A pass's serial number is its member's uuid; its authentication token is stored hashed.
public protocol WalletStore: Sendable {
    /// Records that a pass of `member` was issued with a token hashing to `tokenHash` (replacing an earlier one:
    /// the newest download is the pass the member holds).
    func issueWalletPass(member: UUID, tokenHash: String, now: Int64) async throws
    /// The stored token hash of `member`'s pass, nil when none was issued.
    func walletPassTokenHash(member: UUID) async throws -> String?
    /// Registers `device` for updates of `member`'s pass with `pushToken`. Registering again changes the push token
    /// in the same row and answers false (true: a new registration): a device that registers hundreds of times
    /// costs one row.
    func registerWalletDevice(_ device: String, member: UUID, pushToken: String, now: Int64) async throws -> Bool
    /// Removes a registration; false when there was none.
    func unregisterWalletDevice(_ device: String, member: UUID) async throws -> Bool
    /// The passes `device` is registered for whose members changed after `since` (all with nil), with the time
    /// of each one's latest change.
    func walletPassesUpdated(device: String, since: Int64?) async throws -> [(member: UUID, changedAt: Int64)]
    /// When what `member`'s pass shows last changed (the member's latest change, or its creation).
    func walletPassLastChange(member: UUID) async throws -> Int64?
    /// The devices registered for `member`'s pass and their push tokens.
    func walletRegistrations(member: UUID) async throws -> [(device: String, pushToken: String)]
    /// Leases, for `owner` until `now + leaseSeconds`, up to `limit` passes whose member changed since their
    /// devices were last told and whose next attempt is due, with the member's version and registrations.
    func leaseWalletUpdates(owner: String, now: Int64, leaseSeconds: Int64, limit: Int) async throws -> [WalletUpdate]
    /// Settles a leased update: its devices were told of `version` (or retries at `retryAt`, with `error`). Only
    /// the lease's holder settles it; removes the registrations of `goneDevices` (their push tokens are dead).
    func settleWalletUpdate(_ update: WalletUpdate, owner: String, retryAt: Int64?, error: String?, goneDevices: [String]) async throws
    /// Puts a renewal reminder on `member`'s Apple Wallet pass (`threshold` before `coverageEnd`) and makes the
    /// pass an update to push: Wallet shows the reminder as the coverage field's change message. False when the
    /// member has no pass with a registered device (nothing would show it).
    func putReminderOnWalletPass(member: UUID, reminder: String, now: Int64) async throws -> Bool
    /// The reminder the member's pass shows, nil when none.
    func walletPassReminder(member: UUID) async throws -> String?

    /// Passes whose devices have not been told of their member's latest change, for monitoring.
    func pendingWalletUpdates() async throws -> Int

    /// Records that `member`'s Google Wallet save link was issued: from now on each change is sent as an update
    /// of the object (the object as it is now needs none).
    func recordGoogleWalletObject(member: UUID, now: Int64) async throws
    /// As ``leaseWalletUpdates(owner:now:leaseSeconds:limit:)``, for Google Wallet objects (no registrations).
    func leaseGoogleWalletUpdates(owner: String, now: Int64, leaseSeconds: Int64, limit: Int) async throws -> [WalletUpdate]
    /// As ``settleWalletUpdate(_:owner:retryAt:error:goneDevices:)``, for a Google Wallet object.
    func settleGoogleWalletUpdate(_ update: WalletUpdate, owner: String, retryAt: Int64?, error: String?) async throws

    /// Keeps log lines sent by devices, the newest ``WalletLog/kept`` only.
    func keepWalletLogs(_ lines: [String], now: Int64) async throws
    /// The newest kept log lines, newest first.
    func walletLogs(limit: Int) async throws -> [String]
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

/// A pass whose member changed since its devices were last told: push to each registration.
public struct WalletUpdate: Sendable, Hashable {
    public var member: UUID
    /// The member's ledger version the push announces.
    public var version: Int64
    /// Attempts made so far (for the backoff).
    public var attempts: Int64
    /// Each registered device and its push token.
    public var registrations: [WalletRegistration]
    /// The pass's reminder count the push announces (Apple passes).
    public var reminderSeq: Int64

    public init(member: UUID, version: Int64, attempts: Int64, registrations: [WalletRegistration], reminderSeq: Int64 = 0) {
        self.member = member
        self.version = version
        self.attempts = attempts
        self.registrations = registrations
        self.reminderSeq = reminderSeq
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
