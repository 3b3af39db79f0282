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
