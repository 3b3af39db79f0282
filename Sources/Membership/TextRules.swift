import Foundation

/// Rules for text that people type and that other people are shown: names on cards, emails, phone numbers, ids.
public enum TextRules {
    /// What is wrong with `text` if it holds a character that can hide or disguise what is shown, or nil.
    ///
    /// Refused: control characters (C0 including NUL, DEL, C1), which some stores cut text at and terminals
    /// act on, and the bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), which
    /// reorder what a vendor reads across the counter. The ordinary right-to-left and left-to-right marks, which
    /// Arabic text may need, are allowed.
    public static func disguisingCharacterProblem(_ text: String) -> String? {
        for (offset, scalar) in text.unicodeScalars.enumerated() where isDisguising(scalar) {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            return "must not contain control or bidirectional override characters (\(code) at character \(offset + 1))"
        }
        return nil
    }

    /// The longest display name of a member or a shop, in characters as JSON Schema's `maxLength` counts them
    /// (Unicode scalars). A card shows as much of it as fits in its own limit.
    public static let maxNameLength = 128

    /// What is wrong with a display name as it was sent (before its surrounding spaces are trimmed), or nil.
    public static func nameProblem(_ name: String) -> String? {
        if let problem = disguisingCharacterProblem(name) { return problem }
        if name.unicodeScalars.count > maxNameLength { return "must be at most \(maxNameLength) characters" }
        if name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return "is required" }
        return nil
    }

    /// `text` as a terminal may print it: every character that can hide or disguise what is shown (control
    /// characters, bidirectional overrides) written as `\u{…}`, so stored text — an old entry, a hostile one —
    /// can neither move the cursor nor reorder a line.
    public static func terminalSafe(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if isDisguising(scalar) {
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func isDisguising(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true  // C0, DEL, C1
        case 0x202A...0x202E, 0x2066...0x2069: return true  // bidi embeddings, overrides, isolates
        default: return false
        }
    }
}
