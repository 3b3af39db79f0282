public import Foundation

/// Where reminders are recorded, leased and settled: the ledger's own database, so a reminder is recorded in
/// the same place as the coverage it is about.
public protocol ReminderStore: Sendable {
    /// Records the reminder due at `now` for every member whose coverage ends within the next 7 days or ended
    /// within ``Reminder/endedWindow``, for `channel`, unless that reminder was recorded before. Works through
    /// the window `batchSeconds` of coverage ends at a time. Returns how many reminders are new.
    func recordDueReminders(channel: String, now: Int64, batchSeconds: Int64) async throws -> Int
    /// What ``recordDueReminders(channel:now:batchSeconds:)`` would record, recording nothing: up to `limit`
    /// members after `cursor` (a member uuid), in uuid order.
    func previewDueReminders(channel: String, now: Int64, after cursor: UUID?, limit: Int) async throws -> [DueReminder]
    /// Leases up to `limit` open reminders whose next attempt is due by `now` (and whose lease, if any, has
    /// ended) to `owner` for `leaseSeconds`, counting an attempt for each; with each, the member as they are.
    func leaseReminders(channel: String, owner: String, limit: Int, now: Int64, leaseSeconds: Int64) async throws -> [DueReminder]
    /// Extends to `now + leaseSeconds` the leases `owner` still holds on the open reminders `ids`, and returns
    /// those ids: a lease another run has taken since (after it ended) is not this run's any more, and a
    /// reminder settled since is not open.
    func renewReminderLeases(ids: [String], owner: String, now: Int64, leaseSeconds: Int64) async throws -> Set<String>
    /// Settles leased reminders with their outcomes in one transaction; a reminder whose lease `owner` no
    /// longer holds is left alone. Returns the state each settled reminder ended in.
    func settleReminders(
        _ outcomes: [(reminder: Reminder, outcome: ReminderOutcome)],
        owner: String,
        schedule: RetrySchedule,
        now: Int64
    ) async throws -> [Reminder.State]
    /// The earliest time an open reminder of `channel` can next be leased (its next attempt or the end of
    /// another worker's lease), or nil when none is open.
    func nextOpenReminderTime(channel: String) async throws -> Int64?
    /// Open reminders of `channel`: how many no run holds at `now`, and how many a run's lease holds.
    func openReminderCounts(channel: String, now: Int64) async throws -> (free: Int, leased: Int)
    /// Of `ids`, the reminders still open at `now`: those no run holds, and those a run's lease holds (a reminder
    /// settled since is in neither).
    func openReminders(ids: [String], now: Int64) async throws -> (free: Set<String>, leased: Set<String>)
    /// How many reminders are in each state.
    func reminderCounts(channel: String?) async throws -> [Reminder.State: Int]
    /// Reminders in `states`, the most recently changed first.
    func reminders(in states: [Reminder.State], limit: Int) async throws -> [Reminder]
    /// Opens again the reminders in `states` (created in `created`, if given) or with the given `ids`: due now,
    /// attempts from zero. Delivered and superseded reminders are never reopened. Returns how many.
    func requeueReminders(states: [Reminder.State], created: ClosedRange<Int64>?, ids: [String], now: Int64) async throws -> Int
}
