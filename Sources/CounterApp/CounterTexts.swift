import CounterAssets
import Foundation
import PeezBasics

/// What the counter says to a vendor, in the shop's language: English, French or Arabic, kept as data
/// (`counter-texts.json`, built into the binary) and filled at their `{placeholders}`.
public struct CounterTexts: Sendable {
    /// The languages the counter speaks.
    public enum Language: String, CaseIterable, Sendable {
        case en, fr, ar

        /// Arabic is written right to left.
        public var isRightToLeft: Bool { self == .ar }

        /// The language a locale name (`LANG`, e.g. `fr_DZ.UTF-8`, `ar`) asks for; English for any other.
        public init(locale: String?) {
            let code = (locale ?? "").prefix { $0.isLetter }.lowercased()
            self = Language(rawValue: code) ?? .en
        }
    }

    struct Document: Decodable {
        var languages: [String: [String: String]]
    }

    public let language: Language
    private let texts: [String: String]

    /// The built-in texts of every language, checked once: each has every text English has.
    static let builtIn: [Language: [String: String]] = {
        do {
            let document = try JSONDecoder().decode(Document.self, from: Data(CounterAssets.counterTexts))
            var byLanguage: [Language: [String: String]] = [:]
            let english = document.languages["en"] ?? [:]
            for language in Language.allCases {
                guard let texts = document.languages[language.rawValue] else { preconditionFailure("counter-texts.json has no \(language.rawValue)") }
                let missing = Set(english.keys).subtracting(texts.keys)
                precondition(missing.isEmpty, "counter-texts.json: \(language.rawValue) lacks \(missing.sorted())")
                byLanguage[language] = texts
            }
            return byLanguage
        } catch {
            preconditionFailure("the built-in counter texts do not parse: \(error)")
        }
    }()

    public init(_ language: Language) {
        self.language = language
        texts = Self.builtIn[language]!
    }

    /// The text named `key` with its placeholders filled from `values` in one pass over the template: a value
    /// is never read as a template itself (a member named "{membership_id}" is shown as written).
    public func text(_ key: String, _ values: [String: String] = [:]) -> String {
        let template = texts[key] ?? key
        var out = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            let afterOpen = rest.index(after: open)
            if let close = rest[afterOpen...].firstIndex(of: "}"), let value = values[String(rest[afterOpen..<close])] {
                out += value
                rest = rest[rest.index(after: close)...]
            } else {
                out += "{"
                rest = rest[afterOpen...]
            }
        }
        return out + rest
    }

    /// Every text's name, for the tests that hold each language to English.
    public static var keys: [String] { builtIn[.en]!.keys.sorted() }

    /// A time as every counter screen shows it: `2027-02-24 14:28 (Algiers)`.
    public func time(_ seconds: Int64) -> String {
        text("time", ["time": AlgiersCalendar.minuteStamp(seconds)])
    }
}
