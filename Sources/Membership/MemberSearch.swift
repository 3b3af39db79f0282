import Foundation

/// What a console search looks for, read from what a person typed.
public enum MemberSearch: Sendable, Hashable {
    /// A whole membership id (`PEEZ-20261127-00042`, in any case).
    case membershipID(String)
    /// A whole phone number, as stored (`+213551234567`).
    case phone(String)
    /// Any part of a member's name, phone number or membership id, folded as ``MemberSearchKey/fold(_:)``
    /// folds them; at least ``MemberSearchKey/shortestPart`` characters.
    case part(String)
    /// The start of a member's name, folded: what a search shorter than ``MemberSearchKey/shortestPart`` can
    /// look for without reading every member.
    case start(String)

    /// The search `text` asks for: a membership id (or its start, or its end from its day on), a phone number in any written form (`0551 23 45 67`,
    /// `+213551234567`, `00213…`, or a part of one), or any part of a name in any case and with or without
    /// accents. Nil for nothing to look for, more than 100 characters, or a character no name holds.
    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        // No name holds a control character (a NUL would reach the database as no text can).
        guard !trimmed.isEmpty, text.unicodeScalars.count <= 100, TextRules.disguisingCharacterProblem(trimmed) == nil else { return nil }
        if Member.isMembershipID(trimmed.uppercased()) {
            self = .membershipID(trimmed.uppercased())
            return
        }
        if trimmed.uppercased().hasPrefix("PEEZ-") || MemberSearchKey.isMembershipIDTail(trimmed) {
            self = .part(trimmed.lowercased())
            return
        }
        if let digits = MemberSearchKey.phoneDigits(trimmed) {
            if digits.count == 10, digits.hasPrefix("0") {
                self = .phone("+213" + digits.dropFirst())
                return
            }
            self = digits.count >= MemberSearchKey.shortestPart ? .part(digits) : .start(digits)
            return
        }
        let folded = MemberSearchKey.fold(trimmed)
        guard !folded.isEmpty else { return nil }
        self = folded.count >= MemberSearchKey.shortestPart ? .part(folded) : .start(folded)
    }
}

/// The text a member is found by: the name folded (lower case, without accents or Arabic short vowels), the
/// phone number as written in Algeria (`0551…`), and the membership id in lower case, kept with the member and
/// indexed so that any part of it is found without reading every member.
public enum MemberSearchKey {
    /// The fewest characters a search for a part of a key looks for (an index of three-character pieces
    /// answers it).
    public static let shortestPart = 3
    /// Between the parts of a key: a character no search holds, so no match spans two parts.
    static let separator: Character = "\u{1F}"

    /// The key of a member with these fields.
    public static func key(name: String, phone: String, membershipID: String) -> String {
        fold(name) + String(separator) + nationalPhone(phone) + String(separator) + membershipID.lowercased()
    }

    /// `text` as searches compare it: lower case; accents, Arabic short vowels and the tatweel taken off;
    /// hamza-carrying alefs as a bare alef, alef maqsura as yeh, teh marbuta as heh; runs of white space as one
    /// space.
    public static func fold(_ text: String) -> String {
        var folded = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in text.lowercased().decomposedStringWithCanonicalMapping.unicodeScalars {
            if scalar.properties.isWhitespace {
                pendingSpace = !folded.isEmpty
                continue
            }
            if scalar.properties.generalCategory == .nonspacingMark || scalar == "\u{0640}" { continue }
            if pendingSpace {
                folded.append(" ")
                pendingSpace = false
            }
            switch scalar {
            case "\u{0649}": folded.append("\u{064A}")  // alef maqsura → yeh
            case "\u{0629}": folded.append("\u{0647}")  // teh marbuta → heh
            default: folded.append(scalar)
            }
        }
        return String(folded)
    }

    /// The digits of `text` when it is written as (part of) a phone number, in the national form a key holds
    /// (`+213551…` and `00213551…` as `0551…`); nil when it is not only digits, spaces, dots, dashes and
    /// brackets with at most a leading `+`.
    public static func phoneDigits(_ text: String) -> String? {
        var rest = Substring(text)
        let international = rest.hasPrefix("+")
        if international { rest = rest.dropFirst() }
        guard rest.allSatisfy({ $0.isASCIIDigit || " .-()".contains($0) }) else { return nil }
        let digits = rest.filter(\.isASCIIDigit)
        guard !digits.isEmpty else { return nil }
        if digits.hasPrefix("00213") { return "0" + digits.dropFirst(5) }
        if digits.hasPrefix("213"), international || digits.count == 12 { return "0" + digits.dropFirst(3) }
        return international ? "+" + digits : digits
    }

    /// Whether `text` is the end of a membership id from its day on (`20261127-00042`), not a phone number.
    static func isMembershipIDTail(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        return parts.count == 2 && parts[0].count == 8 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }
    }

    /// A stored phone number (`+213551234567`) as written in Algeria (`0551234567`); another country's as stored.
    static func nationalPhone(_ phone: String) -> String {
        phone.hasPrefix("+213") ? "0" + phone.dropFirst(4) : phone
    }
}

extension Member {
    /// What this member is found by in a search: see ``MemberSearchKey``.
    public var searchKey: String {
        MemberSearchKey.key(name: name, phone: phone, membershipID: membershipID)
    }
}
