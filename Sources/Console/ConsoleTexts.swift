public import ConsoleCharts
import Foundation

/// The console's texts in its three languages (`console-texts.json`, the file the page reads too): the charts
/// drawn on the server take their words from it, so a chart and the page around it say the same.
public struct ConsoleTexts: Sendable {
    let languages: [String: [String: String]]

    /// Reads the texts file's `languages`; every language must have the same keys (a test holds the file to it).
    public init(json: [UInt8]) throws {
        struct File: Decodable { var languages: [String: [String: String]] }
        languages = try JSONDecoder().decode(File.self, from: Data(json)).languages
    }

    /// The text `key` in `language`, its `{name}` placeholders filled; the key itself when no language has it.
    public func text(_ key: String, _ language: ChartLanguage, _ values: [String: String] = [:]) -> String {
        var text = languages[language.rawValue]?[key] ?? languages["en"]?[key] ?? key
        for (name, value) in values { text = text.replacingOccurrences(of: "{\(name)}", with: value) }
        return text
    }

    /// The keys of each language.
    public var keysByLanguage: [String: Set<String>] { languages.mapValues { Set($0.keys) } }
}
