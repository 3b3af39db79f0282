public import Foundation
import Membership

/// What a field of a request body must hold.
public enum FieldKind: Sendable {
    case text
    /// An integer (JSON numbers such as 1.5 or 1e30 are not).
    case wholeNumber
    /// A whole number as JSON Schema counts one: 7 or 7.0, within 64 bits.
    case integer
    /// true or false (not 0 or 1).
    case boolean
    case uuid
    /// One of these strings.
    case oneOf([String])

    /// What is wrong with `value` for this kind, or nil.
    public func problem(_ value: JSONValue) -> String? {
        switch (self, value) {
        case (.text, .string), (.wholeNumber, .integer), (.integer, .integer), (.boolean, .bool):
            return nil
        case (.text, _): return "must be text"
        case (.wholeNumber, _): return "must be a whole number"
        case (.integer, .number(let number)):
            return number == number.rounded() && abs(number) < 0x1p63 ? nil : "must be a whole number"
        case (.integer, _): return "must be a whole number"
        case (.boolean, _): return "must be true or false"
        case (.uuid, .string(let text)) where UUID(strictText: text) != nil:
            return nil
        case (.uuid, _): return "must be a UUID, e.g. 6f1c2a7e-8d4b-4e9a-9c3f-2b7d5e1a0c44"
        case (.oneOf(let choices), .string(let text)) where choices.contains(text):
            return nil
        case (.oneOf(let choices), _): return "must be one of: " + choices.joined(separator: ", ")
        }
    }
}

/// The fields of a JSON object and the kind each must hold, for a body read field by field by hand (the scan
/// report, whose every entry's problems are named with its place); a request body of plain fields is an
/// ``APIRequest`` instead, declared once. Field names are the conforming type's `CodingKeys`.
public protocol FieldRules {
    associatedtype Field: CodingKey & Hashable & CaseIterable
    /// Each field's kind, and whether it must be present (not null).
    static var fields: [Field: (kind: FieldKind, required: Bool)] { get }
}

extension FieldRules {
    /// Field name → problem, for every declared field of `object` that is missing or of the wrong kind. Fields
    /// not declared are ignored; null is absent.
    public static func problems(in object: [String: JSONValue]) -> [String: String] {
        var problems: [String: String] = [:]
        for (field, rule) in fields {
            let name = field.stringValue
            guard let value = object[name], value != .null else {
                if rule.required { problems[name] = "is required" }
                continue
            }
            if let problem = rule.kind.problem(value) { problems[name] = problem }
        }
        return problems
    }
}

/// A body's fields once their kinds are checked: each read as its kind, absent (or null) as nil. A field whose
/// kind was not checked reads as nil too, never as a guess.
public struct CheckedFields<Field: CodingKey> {
    let object: [String: JSONValue]

    /// The fields of `object`, to be read once their kinds are checked (``FieldRules/problems(in:)``).
    public init(_ object: [String: JSONValue]) { self.object = object }

    public func text(_ field: Field) -> String? {
        if case .string(let text)? = object[field.stringValue] { return text }
        return nil
    }

    /// An integer literal, or a whole number written with a fraction or an exponent (7.0) within 64 bits.
    public func integer(_ field: Field) -> Int64? {
        switch object[field.stringValue] {
        case .integer(let number)?: return number
        case .number(let number)? where number == number.rounded() && abs(number) < 0x1p63: return Int64(number)
        default: return nil
        }
    }

    public func boolean(_ field: Field) -> Bool? {
        if case .bool(let flag)? = object[field.stringValue] { return flag }
        return nil
    }

    public func uuid(_ field: Field) -> UUID? { text(field).flatMap(UUID.init(strictText:)) }

}
