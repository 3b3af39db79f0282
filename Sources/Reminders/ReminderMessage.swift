import Foundation
public import Membership
import PeezBasics

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
        /// Where the app takes the member to pay the next months online (absent when the templates name none).
        var pay_link: String?
    }

    public static let eventType = "membership.renewal_reminder"

    var type = ReminderMessage.eventType
    var timestamp: String
    public var data: Payload

    public init(_ due: DueReminder, templates: ReminderTemplates, now: Int64) {
        self.init(due, templates: templates, now: now, timestamp: AlgiersCalendar.iso8601(now))
    }

    /// `timestamp` is `now` as ISO-8601, made once for a batch.
    init(_ due: DueReminder, templates: ReminderTemplates, now: Int64, timestamp: String) {
        let text = templates.render(due, now: now)
        let reminder = due.reminder
        self.timestamp = timestamp
        data = Payload(
            reminder_id: reminder.id,
            member_uuid: Self.lowercaseText(reminder.memberUUID),
            membership_id: due.membershipID,
            language: text.language,
            threshold: reminder.threshold.rawValue,
            days_before_end: reminder.threshold.days,
            coverage_end: AlgiersCalendar.iso8601(reminder.coverageEnd),
            title: text.title,
            body: text.body,
            deep_link: text.deepLink,
            pay_link: text.payLink
        )
    }

    /// The message as compact JSON (one line), keys sorted: written byte by byte, a run writes tens of thousands.
    public func json() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(512 + data.body.utf8.count)
        func field(_ name: StaticString, _ value: String) {
            out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            JSONText.append(value, to: &out)
        }
        field(#"{"data":{"body":"#, data.body)
        field(#","coverage_end":"#, data.coverage_end)
        out += Array(#","days_before_end":"#.utf8) + Array(String(data.days_before_end).utf8)
        field(#","deep_link":"#, data.deep_link)
        field(#","language":"#, data.language)
        field(#","member_uuid":"#, data.member_uuid)
        field(#","membership_id":"#, data.membership_id)
        if let payLink = data.pay_link { field(#","pay_link":"#, payLink) }
        field(#","reminder_id":"#, data.reminder_id)
        field(#","threshold":"#, data.threshold)
        field(#","title":"#, data.title)
        field(#"},"timestamp":"#, timestamp)
        field(#","type":"#, type)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// A UUID in lower case, made without Foundation's `uuidString` (which formats through `sprintf`).
    static func lowercaseText(_ uuid: UUID) -> String {
        withUnsafeBytes(of: uuid.uuid) { Hex.uuidText($0) }
    }
}

extension ReminderOutcome {
    /// A delivery not started because the run's lease on it ran out (or could not be renewed).
    static let leaseLost = ReminderOutcome.retry("not sent: this run's lease on it ended first", sent: false, retryAfter: nil)
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
    /// The longest one delivery can take, in seconds, from its start to its outcome (a request's timeout, a
    /// batch's write and flush): a run's lease must outlast it.
    var longestDeliverySeconds: Int64 { get }
    /// Delivers the messages and says what became of each, in their order. Each one is started only if
    /// `mayStart` allows it when its turn comes (the run still holds its lease long enough); one not allowed is
    /// not sent, and retried later.
    func deliver(_ messages: [ReminderDelivery], mayStart: @escaping @Sendable (_ id: String) async -> Bool) async -> [ReminderOutcome]
    /// Releases what the sink holds (connections, files).
    func close() async
}
