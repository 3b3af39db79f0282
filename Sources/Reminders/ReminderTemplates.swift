public import Foundation
public import Membership
import PeezBasics

/// The reminder texts, kept as data (`reminder-templates.json`, built into the binary): a title and a body
/// for each language and each way the time left reads when the reminder is sent (``TimeLeft``), not the
/// threshold that selected it: a reminder sent late, or for coverage ending mid-day, still says what is true.
/// French unless the member chose Arabic.
public struct ReminderTemplates: Sendable {
    struct Text: Decodable, Sendable {
        var title: String
        var body: String
    }

    struct Document: Decodable, Sendable {
        var deep_link: String
        /// Where the app takes the member to pay online (a checkout of the months, `POST /v1/members/{uuid}/checkouts`).
        var pay_link: String?
        var languages: [String: [String: Text]]
    }

    let document: Document
    /// Each language's texts, split at their placeholders once: [language: [threshold: (title, body)]].
    private let compiled: [String: [String: (title: Template, body: Template)]]
    private let deepLink: Template
    private let payLink: Template?

    /// A text split at its placeholders, filled by concatenation (a run fills tens of thousands).
    struct Template: Sendable {
        enum Part: Sendable {
            case text(String)
            case endDate, membershipID, days
        }
        let parts: [Part]

        init(_ text: String) {
            var parts: [Part] = []
            var rest = Substring(text)
            while let open = rest.firstIndex(of: "{") {
                let close = rest[open...].firstIndex(of: "}")
                let name = close.map { rest[rest.index(after: open)..<$0] }
                let part: Part? = name == "end_date" ? .endDate : name == "membership_id" ? .membershipID : name == "days" ? .days : nil
                guard let close, let part else {
                    parts.append(.text(String(rest[...open])))
                    rest = rest[rest.index(after: open)...]
                    continue
                }
                if open > rest.startIndex { parts.append(.text(String(rest[..<open]))) }
                parts.append(part)
                rest = rest[rest.index(after: close)...]
            }
            if !rest.isEmpty { parts.append(.text(String(rest))) }
            self.parts = parts
        }

        func fill(endDate: String, membershipID: String, days: Int64 = 0) -> String {
            var out = ""
            for part in parts {
                switch part {
                case .text(let text): out += text
                case .endDate: out += endDate
                case .membershipID: out += membershipID
                case .days: out += String(days)
                }
            }
            return out
        }
    }

    /// The templates built into this binary.
    public static let builtIn: ReminderTemplates = {
        do {
            return try ReminderTemplates(json: Data(PackageResources.reminder_templates_json))
        } catch {
            preconditionFailure("the built-in reminder templates do not parse: \(error)")
        }
    }()

    /// How the time left reads when a reminder is sent, by Algiers calendar days from the day it is sent to
    /// the last day covered.
    public enum TimeLeft: Equatable, Sendable {
        case today, tomorrow
        case inDays(Int64)
        case ended

        /// The time left at `now` for coverage ending at `coverageEnd` (a coverage ending at midnight covered
        /// the day before it).
        public init(coverageEnd: Int64, now: Int64) {
            guard coverageEnd > now else {
                self = .ended
                return
            }
            switch AlgiersCalendar.calendarDays(from: now, to: coverageEnd - 1) {
            case ...0: self = .today
            case 1: self = .tomorrow
            case let days: self = .inDays(days)
            }
        }

        /// The template's name in `reminder-templates.json`, the optional plural forms first.
        var templateNames: [String] {
            switch self {
            case .today: return ["today"]
            case .tomorrow: return ["tomorrow"]
            case .inDays(let days): return (days == 2 ? ["in_two_days"] : days >= 11 ? ["in_many_days"] : []) + ["in_days"]
            case .ended: return ["ended"]
            }
        }
    }

    /// The templates every language must have.
    static let requiredTemplates = ["today", "tomorrow", "in_days", "ended"]

    /// Templates from JSON in the built-in file's shape; every language must have every required text.
    public init(json: Data) throws {
        let document = try JSONDecoder().decode(Document.self, from: json)
        for (language, texts) in document.languages {
            for name in Self.requiredTemplates where texts[name] == nil {
                throw ReminderTemplateError("the \(language) templates have no text for \(name)")
            }
        }
        guard document.languages["fr"] != nil else { throw ReminderTemplateError("the templates have no French, the default language") }
        self.document = document
        compiled = document.languages.mapValues { texts in texts.mapValues { (Template($0.title), Template($0.body)) } }
        deepLink = Template(document.deep_link)
        payLink = document.pay_link.map(Template.init)
    }

    /// The title, body, deep link and link to pay online for a reminder sent at `now`, in the member's language
    /// (French when there is none), saying the time left as it is at `now`.
    public func render(_ due: DueReminder, now: Int64) -> (language: String, title: String, body: String, deepLink: String, payLink: String?) {
        let language = compiled[due.language] == nil ? "fr" : due.language
        let timeLeft = TimeLeft(coverageEnd: due.reminder.coverageEnd, now: now)
        let texts = compiled[language]!
        let text = timeLeft.templateNames.lazy.compactMap { texts[$0] }.first!
        let days: Int64
        if case .inDays(let count) = timeLeft { days = count } else { days = 0 }
        // The last day covered: a coverage ending at midnight covered the day before it.
        let endDate = String(AlgiersCalendar.iso8601(due.reminder.coverageEnd - 1).prefix(10))
        return (
            language, text.title.fill(endDate: endDate, membershipID: due.membershipID, days: days),
            text.body.fill(endDate: endDate, membershipID: due.membershipID, days: days),
            deepLink.fill(endDate: endDate, membershipID: due.membershipID),
            payLink?.fill(endDate: endDate, membershipID: due.membershipID)
        )
    }
}

/// Templates that cannot be used.
public struct ReminderTemplateError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
