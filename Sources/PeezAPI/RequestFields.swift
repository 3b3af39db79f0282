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
    public func problem(_ value: Any) -> String? {
        switch self {
        case .text:
            return value is String ? nil : "must be text"
        case .wholeNumber:
            // JSONSerialization keeps an integer literal as an integer NSNumber, a literal with a fraction or an
            // exponent as a double, and true/false as a boolean ("c"); only the first is a whole number here.
            guard let number = value as? NSNumber, ["i", "s", "l", "q", "I", "S", "L", "Q"].contains(String(cString: number.objCType))
            else { return "must be a whole number" }
            return number.uint64Value > UInt64(Int64.max) && String(cString: number.objCType) == "Q" ? "must be a whole number within 64 bits" : nil
        case .integer:
            guard let number = value as? NSNumber else { return "must be a whole number" }
            switch String(cString: number.objCType) {
            case "i", "s", "l", "q", "I", "S", "L": return nil
            case "Q": return number.uint64Value <= UInt64(Int64.max) ? nil : "must be a whole number within 64 bits"
            case "d", "f":
                let double = number.doubleValue
                return double == double.rounded() && abs(double) < 0x1p63 ? nil : "must be a whole number"
            default: return "must be a whole number"
            }
        case .boolean:
            guard let number = value as? NSNumber, String(cString: number.objCType) == "c" else { return "must be true or false" }
            return nil
        case .uuid:
            guard let text = value as? String, UUID(strictText: text) != nil else {
                return "must be a UUID, e.g. 6f1c2a7e-8d4b-4e9a-9c3f-2b7d5e1a0c44"
            }
            return nil
        case .oneOf(let choices):
            guard let text = value as? String, choices.contains(text) else { return "must be one of: " + choices.joined(separator: ", ") }
            return nil
        }
    }
}

/// The fields of a JSON object and the kind each must hold. Field names are the conforming type's `CodingKeys`,
/// the same names its `Codable` conformance (if any) writes.
public protocol FieldRules {
    associatedtype Field: CodingKey & Hashable & CaseIterable
    /// Each field's kind, and whether it must be present (not null).
    static var fields: [Field: (kind: FieldKind, required: Bool)] { get }
}

/// A request body read in one pass: the JSON parsed once, every declared field checked against its kind (so a
/// client learns every problem of a body from one answer), then the typed value made from the checked fields.
public protocol RequestFields: FieldRules, Sendable {
    /// The value, from fields whose kinds have all been checked.
    init(checked: CheckedFields<Field>)
}

extension FieldRules {
    /// Field name → problem, for every declared field of `object` that is missing or of the wrong kind. Fields
    /// not declared are ignored; null is absent.
    public static func problems(in object: [String: Any]) -> [String: String] {
        var problems: [String: String] = [:]
        for (field, rule) in fields {
            let name = field.stringValue
            guard let value = object[name], !(value is NSNull) else {
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
    let object: [String: Any]

    /// The fields of `object`, to be read once their kinds are checked (``RequestFields/problems(in:)``).
    public init(_ object: [String: Any]) { self.object = object }

    private func value(_ field: Field) -> Any? {
        guard let value = object[field.stringValue], !(value is NSNull) else { return nil }
        return value
    }

    public func text(_ field: Field) -> String? { value(field) as? String }
    public func integer(_ field: Field) -> Int64? { (value(field) as? NSNumber)?.int64Value }
    public func boolean(_ field: Field) -> Bool? { value(field) as? Bool }
    public func uuid(_ field: Field) -> UUID? { text(field).flatMap(UUID.init(strictText:)) }

    /// A field the kind check found present: its value, or (unreachable after the check) the type's zero.
    public func required(_ field: Field) -> String { text(field) ?? "" }
    public func required(_ field: Field) -> Int { integer(field).map { Int(clamping: $0) } ?? 0 }
    public func required(_ field: Field) -> UUID { uuid(field) ?? UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
}
