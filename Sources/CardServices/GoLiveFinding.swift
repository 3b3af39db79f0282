import Foundation

/// One line of the go-live check (`peez check`, the console's "Going live" panel): what was checked, how it
/// stands, what was found, and the fix when it is not ok.
public struct GoLiveFinding: Codable, Sendable, Equatable {
    /// What was checked: `signing key`, `database`, `public URL`, `Apple pass certificate`, …
    public var check: String
    public var level: CheckLevel
    /// What was found, one sentence.
    public var found: String
    /// What to do, when the level is not ok.
    public var fix: String?

    public init(_ check: String, _ level: CheckLevel, _ found: String, fix: String? = nil) {
        self.check = check
        self.level = level
        self.found = found
        self.fix = fix
    }

    /// The line `peez check` prints: `ok    check: found`, and the fix on the next line.
    public var line: String {
        let head = "\(level.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0))\(check): \(found)"
        guard let fix, level != .ok else { return head }
        return head + "\n      fix: " + fix
    }
}

/// The go-live check's answer for the console.
public struct GoLiveReport: Codable, Sendable, Equatable {
    /// The worst level found.
    public var level: CheckLevel
    public var findings: [GoLiveFinding]
    /// When it was checked (seconds since the epoch).
    public var checkedAt: Int64

    public init(findings: [GoLiveFinding], checkedAt: Int64) {
        self.findings = findings
        self.level = findings.map(\.level).max() ?? .ok
        self.checkedAt = checkedAt
    }

    enum CodingKeys: String, CodingKey {
        case level, findings
        case checkedAt = "checked_at"
    }
}
