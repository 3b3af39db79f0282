import Foundation

/// A JSON value as it came on the wire, for checking a request body field by field before it is trusted.
///
/// An integer literal (`7`) is kept apart from a number written with a fraction or an exponent (`7.0`, `7e0`):
/// the API refuses `1.0` months, and `JSONDecoder` cannot tell the two apart, so bodies are parsed here once.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// An integer literal within 64 bits.
    case integer(Int64)
    /// Any other number: with a fraction or an exponent, or an integer beyond 64 bits.
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// `bytes` parsed as JSON, or nil when they are not JSON.
    public init?(parsing bytes: [UInt8]) {
        guard let parsed = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) else { return nil }
        self.init(parsed)
    }

    /// The value `JSONSerialization` made, which keeps a number's literal kind in its `objCType`.
    private init(_ parsed: Any) {
        switch parsed {
        case let text as String:
            self = .string(text)
        case let number as NSNumber:
            switch String(cString: number.objCType) {
            case "c": self = .bool(number.boolValue)
            case "i", "s", "l", "q", "I", "S", "L": self = .integer(number.int64Value)
            case "Q": self = number.uint64Value <= UInt64(Int64.max) ? .integer(number.int64Value) : .number(number.doubleValue)
            default: self = .number(number.doubleValue)
            }
        case let list as [Any]:
            self = .array(list.map(JSONValue.init))
        case let members as [String: Any]:
            self = .object(members.mapValues(JSONValue.init))
        default:
            self = .null
        }
    }

    /// The members of an object; nil for any other value.
    public var object: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }
}
