import CardToken
public import Foundation
public import Membership

/// The reminder texts, kept as data (`reminder-templates.json`, built into the binary): a title and a body
/// for each language and threshold. French unless the member chose Arabic.
public struct ReminderTemplates: Sendable {
    struct Text: Decodable, Sendable {
        var title: String
        var body: String
    }

    struct Document: Decodable, Sendable {
        var deep_link: String
        var languages: [String: [String: Text]]
    }

    let document: Document
    /// Each language's texts, split at their placeholders once: [language: [threshold: (title, body)]].
    private let compiled: [String: [String: (title: Template, body: Template)]]
    private let deepLink: Template

    /// A text split at its placeholders, filled by concatenation (a run fills tens of thousands).
    struct Template: Sendable {
        enum Part: Sendable { case text(String), endDate, membershipID }
        let parts: [Part]

        init(_ text: String) {
            var parts: [Part] = []
            var rest = Substring(text)
            while let open = rest.firstIndex(of: "{") {
                let close = rest[open...].firstIndex(of: "}")
                let name = close.map { rest[rest.index(after: open)..<$0] }
                let part: Part? = name == "end_date" ? .endDate : name == "membership_id" ? .membershipID : nil
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

        func fill(endDate: String, membershipID: String) -> String {
            var out = ""
            for part in parts {
                switch part {
                case .text(let text): out += text
                case .endDate: out += endDate
                case .membershipID: out += membershipID
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

    /// Templates from JSON in the built-in file's shape; every language must have every threshold.
    public init(json: Data) throws {
        let document = try JSONDecoder().decode(Document.self, from: json)
        for (language, texts) in document.languages {
            for threshold in Reminder.Threshold.allCases where texts[threshold.rawValue] == nil {
                throw ReminderTemplateError("the \(language) templates have no text for \(threshold.rawValue)")
            }
        }
        guard document.languages["fr"] != nil else { throw ReminderTemplateError("the templates have no French, the default language") }
        self.document = document
        compiled = document.languages.mapValues { texts in texts.mapValues { (Template($0.title), Template($0.body)) } }
        deepLink = Template(document.deep_link)
    }

    /// The title, body and deep link for a reminder, in the member's language (French when there is none).
    public func render(_ due: DueReminder) -> (language: String, title: String, body: String, deepLink: String) {
        let language = compiled[due.language] == nil ? "fr" : due.language
        let text = compiled[language]![due.reminder.threshold.rawValue]!
        // The last day covered: a coverage ending at midnight covered the day before it.
        let endDate = String(AlgiersCalendar.iso8601(due.reminder.coverageEnd - 1).prefix(10))
        return (language, text.title.fill(endDate: endDate, membershipID: due.membershipID),
                text.body.fill(endDate: endDate, membershipID: due.membershipID), deepLink.fill(endDate: endDate, membershipID: due.membershipID))
    }
}

/// Templates that cannot be used.
public struct ReminderTemplateError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
