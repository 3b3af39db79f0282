import ArgumentParser
import Foundation
import Synchronization

/// Where a setting's value came from. One order of precedence for every setting: a flag on the command line, then
/// the environment, then the configuration file (`--config`), then the built-in default.
enum SettingSource: String, Sendable {
    case flag
    case environment
    case file = "config file"
    case builtIn = "default"
}

/// Reads a command's settings, each named by its environment variable (`PEEZ_…`), in the one order of precedence,
/// and remembers what it read and from where, so `peez serve --print-config` shows the configuration the service
/// would run with (secrets masked), and a bad value is named with where it came from.
final class SettingsReader {
    /// One setting as read.
    struct Entry {
        var name: String
        var value: String?
        var source: SettingSource?
        var secret: Bool
    }

    private(set) var entries: [Entry] = []
    private let environment: [String: String]
    private let file: [String: String]

    /// A reader over `environment` and the `KEY=VALUE` file at `filePath` (the format of `/etc/peez/peez.env`:
    /// one setting a line, `#` comments, values optionally quoted), if any.
    init(environment: [String: String], filePath: String?) throws {
        self.environment = environment
        file = try filePath.map(Self.parse) ?? [:]
    }

    /// The value of the setting `name`: `flag` when given, else the environment's, else the file's, else
    /// `builtIn`. An empty environment or file value counts as absent.
    func value(_ name: String, flag: String?, builtIn: String? = nil, secret: Bool = false) -> String? {
        let found: (String, SettingSource)? =
            flag.map { ($0, .flag) }
            ?? environment[name].flatMap { $0.isEmpty ? nil : ($0, .environment) }
            ?? file[name].flatMap { $0.isEmpty ? nil : ($0, .file) }
            ?? builtIn.map { ($0, .builtIn) }
        entries.removeAll { $0.name == name }
        entries.append(Entry(name: name, value: found?.0, source: found?.1, secret: secret))
        return found?.0
    }

    /// The setting `name` for a counter's command, on a till where the service's settings do not live: `flag`,
    /// else the process's environment (an empty value counts as absent), else `builtIn`.
    static func fromEnvironment(_ name: String, flag: String? = nil, builtIn: String? = nil) -> String? {
        flag ?? ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 } ?? builtIn
    }

    /// The reader every command uses: the process's environment and ``ConfigurationFile/path``, the file the
    /// service's unit reads.
    static func forCommand() throws -> SettingsReader {
        try SettingsReader(environment: ProcessInfo.processInfo.environment, filePath: ConfigurationFile.path)
    }

    /// The setting `name` for a command: `flag`, else the process's environment, else the configuration file
    /// (``ConfigurationFile/path``; an empty value counts as absent), else `builtIn`. The same rule as
    /// ``value(_:flag:builtIn:secret:)``.
    static func current(_ name: String, flag: String? = nil, builtIn: String? = nil) throws -> String? {
        try forCommand().value(name, flag: flag, builtIn: builtIn)
    }

    /// The error for a bad value of `name`, in one shape: the setting, where its value came from, and what it
    /// must be.
    func invalid(_ name: String, _ requirement: String) -> ValidationError {
        guard let entry = entries.last(where: { $0.name == name }), let value = entry.value else {
            return ValidationError("\(name) \(requirement)")
        }
        return ValidationError(
            "\(name) (from the \(entry.source?.rawValue ?? "default")) \(requirement), not \(Self.shown(value, secret: entry.secret))"
        )
    }

    /// Every setting read, one a line: `NAME=value  (source)`, secrets masked, unset ones as `(not set)`.
    func printed() -> String {
        entries.map { entry in
            guard let value = entry.value, let source = entry.source else { return "\(entry.name)=  (not set)" }
            return "\(entry.name)=\(Self.shown(value, secret: entry.secret))  (\(source.rawValue))"
        }.joined(separator: "\n")
    }

    /// A value as it may be shown: a secret masked (its first 4 characters kept only when long), a URL's
    /// password masked.
    static func shown(_ value: String, secret: Bool) -> String {
        if secret { return value.count > 16 ? String(value.prefix(4)) + "…(masked)" : "(masked)" }
        if var components = URLComponents(string: value), components.password != nil {
            components.password = "masked"
            return components.string ?? "(masked)"
        }
        return value
    }

    /// The settings of a `KEY=VALUE` file; a line that is none of a comment, a blank or a setting is an error with
    /// its number.
    static func parse(_ path: String) throws -> [String: String] {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            let hint = path == ConfigurationFile.installed ? " (run as root or as the service's user: sudo -u peez peez …; or give --config)" : ""
            throw ValidationError("cannot read the configuration file \(path): \(error.localizedDescription)\(hint)")
        }
        var settings: [String: String] = [:]
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let body = line.hasPrefix("export ") ? String(line.dropFirst(7)) : line
            guard let equals = body.firstIndex(of: "="), case let name = String(body[..<equals]),
                !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber || $0 == "_") })
            else {
                throw ValidationError("\(path):\(index + 1): not a setting (NAME=value, # for a comment): '\(line.prefix(60))'")
            }
            var value = String(body[body.index(after: equals)...])
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = String(value.dropFirst().dropLast())
            }
            settings[name] = value
        }
        return settings
    }
}

/// The configuration file every `peez` command reads after its flags and the environment: `--config`, else
/// `PEEZ_CONFIG`, else `/etc/peez/peez.env` when it exists (the file the systemd units read), so a command an
/// operator types on the server works on the ledger and settings the service runs with.
enum ConfigurationFile {
    /// Where the Debian package keeps the service's settings.
    static let installed = "/etc/peez/peez.env"

    private static let given = Mutex<String?>(nil)

    /// Records the `--config` a command was given (once its options are parsed).
    static func use(_ path: String?) {
        if let path { given.withLock { $0 = path } }
    }

    /// The file in force: `--config`, else `PEEZ_CONFIG`, else the installed file when it exists, else none.
    static var path: String? {
        if let path = given.withLock({ $0 }) { return path }
        if let path = ProcessInfo.processInfo.environment["PEEZ_CONFIG"], !path.isEmpty { return path }
        return FileManager.default.fileExists(atPath: installed) ? installed : nil
    }
}
