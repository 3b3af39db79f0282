import CardToken
import Foundation
public import Membership

/// What a reminder says, as the webhook body and the JSON Lines record: the Standard Webhooks payload shape
/// (`type`, `timestamp`, `data`), the text already in the member's language.
public struct ReminderMessage: Sendable {
    public struct Payload: Sendable {
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

    /// The message as compact JSON (one line), keys sorted: written by hand, a run writes tens of thousands.
    public func json() -> [UInt8] {
        let fields: [(String, String)] = [
            ("body", JSONText.string(data.body)), ("coverage_end", JSONText.string(data.coverage_end)),
            ("days_before_end", String(data.days_before_end)), ("deep_link", JSONText.string(data.deep_link)),
            ("language", JSONText.string(data.language)), ("member_uuid", JSONText.string(data.member_uuid)),
            ("membership_id", JSONText.string(data.membership_id)), ("reminder_id", JSONText.string(data.reminder_id)),
            ("threshold", JSONText.string(data.threshold)), ("title", JSONText.string(data.title)),
        ]
        let payload = "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
        return Array("{\"data\":\(payload),\"timestamp\":\(JSONText.string(timestamp)),\"type\":\(JSONText.string(type))}".utf8)
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
