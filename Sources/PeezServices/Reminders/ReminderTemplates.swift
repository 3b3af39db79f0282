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
    }

    /// The title, body and deep link for a reminder, in the member's language (French when there is none).
    public func render(_ due: DueReminder) -> (language: String, title: String, body: String, deepLink: String) {
        let language = document.languages[due.language] == nil ? "fr" : due.language
        let text = document.languages[language]![due.reminder.threshold.rawValue]!
        let fill = { (template: String) in
            // The last day covered: a coverage ending at midnight covered the day before it.
            template.replacingOccurrences(of: "{end_date}", with: String(AlgiersCalendar.iso8601(due.reminder.coverageEnd - 1).prefix(10)))
                .replacingOccurrences(of: "{membership_id}", with: due.membershipID)
        }
        return (language, fill(text.title), fill(text.body), fill(document.deep_link))
    }
}

/// Templates that cannot be used.
public struct ReminderTemplateError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
