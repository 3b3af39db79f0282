import CardToken
import Foundation
public import Membership

/// What a reminder says, as the webhook body and the JSON Lines record: the Standard Webhooks payload shape
/// (`type`, `timestamp`, `data`), the text already in the member's language.
public struct ReminderMessage: Encodable, Sendable {
    public struct Payload: Encodable, Sendable {
        public var reminder_id: String
        var member_uuid: String
        var membership_id: String
        var language: String
        var threshold: String
        public var days_before_end: Int64
        var coverage_end: String
        var title: String
        var body: String
        var deep_link: String
    }

    public static let eventType = "membership.renewal_reminder"

    var type = ReminderMessage.eventType
    var timestamp: String
    public var data: Payload

    public init(_ due: DueReminder, templates: ReminderTemplates, now: Int64) {
        let text = templates.render(due)
        let reminder = due.reminder
        timestamp = AlgiersCalendar.iso8601(now)
        data = Payload(reminder_id: reminder.id, member_uuid: reminder.memberUUID.uuidString.lowercased(), membership_id: due.membershipID,
                       language: text.language, threshold: reminder.threshold.rawValue, days_before_end: reminder.threshold.days,
                       coverage_end: AlgiersCalendar.iso8601(reminder.coverageEnd), title: text.title, body: text.body, deep_link: text.deepLink)
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// The message as compact JSON (one line).
    public func json() -> [UInt8] {
        // Every field is a string or an integer: encoding cannot fail.
        Array((try? Self.encoder.encode(self)) ?? Data())
    }
}

/// One message for a sink: its id (the idempotency key a receiver deduplicates by) and its JSON body.
public struct ReminderDelivery: Sendable {
    public var id: String
    public var body: [UInt8]

    public init(id: String, body: [UInt8]) {
        self.id = id
        self.body = body
    }
}

/// Where reminders go.
public protocol ReminderSink: Sendable {
    /// Delivers the messages and says what became of each, in their order.
    func deliver(_ messages: [ReminderDelivery]) async -> [ReminderOutcome]
    /// Releases what the sink holds (connections, files).
    func close() async
}
