import Foundation
public import Membership

/// Delivers reminders through members' Apple Wallet passes: each puts the reminder on the member's pass and
/// makes the pass an update to push, so Wallet shows it (the coverage field's change message) with no app and
/// no push token of the backend's. The reminder outbox keeps it exactly once; the Wallet outbox pushes it.
public struct WalletPassReminderSink: ReminderSink {
    let store: any WalletStore
    let clock: WallClock

    public init(store: any WalletStore, clock: WallClock) {
        self.store = store
        self.clock = clock
    }

    /// The longest one delivery takes: a database write.
    public static let deliverySeconds: Int64 = 5
    public var longestDeliverySeconds: Int64 { Self.deliverySeconds }

    public func deliver(_ messages: [ReminderDelivery], mayStart: @escaping @Sendable (String) async -> Bool) async -> [ReminderOutcome] {
        var outcomes: [ReminderOutcome] = []
        for message in messages {
            guard await mayStart(message.id) else {
                outcomes.append(.leaseLost)
                continue
            }
            guard let (member, coverageEnd, threshold) = Self.parse(message.id) else {
                outcomes.append(.failed("not a reminder id: \(message.id.prefix(80))"))
                continue
            }
            do {
                let reminder = WalletReminder(threshold: threshold, coverageEnd: coverageEnd)
                let shown = try await store.putReminderOnWalletPass(member: member, reminder: reminder, now: clock())
                outcomes.append(shown ? .delivered : .failed("the member has no Wallet pass with a registered device any more"))
            } catch {
                outcomes.append(.retry("the pass could not be updated: \(error)", sent: false, retryAfter: nil))
            }
        }
        return outcomes
    }

    public func close() async {}

    /// The member, coverage end and threshold a reminder id names (`rem_<uuid>_<end>_<threshold>_<channel>`).
    static func parse(_ id: String) -> (UUID, Int64, String)? {
        let parts = id.split(separator: "_")
        guard parts.count >= 5, parts[0] == "rem", let member = UUID(uuidString: String(parts[1])), let end = Int64(parts[2]),
            Reminder.Threshold(rawValue: String(parts[3])) != nil
        else { return nil }
        return (member, end, String(parts[3]))
    }
}
