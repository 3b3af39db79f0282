/// A JSON value as it came on the wire, for checking a request body field by field before it is trusted.
///
/// An integer literal (`7`) is kept apart from a number written with a fraction or an exponent (`7.0`, `7e0`):
/// the API refuses `1.0` months, and `JSONDecoder` cannot tell the two apart, so bodies are parsed here once
/// (``JSONParser``).
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

    /// `bytes` parsed as JSON, or nil when they are not JSON (or name one member of an object twice).
    public init?(parsing bytes: [UInt8]) {
        guard let value = try? JSONParser.parse(bytes) else { return nil }
        self = value
    }

    /// `bytes` parsed as JSON: ``JSONParseError`` says why they are not a document the API reads.
    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        try JSONParser.parse(bytes)
    }

    /// The members of an object; nil for any other value.
    public var object: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }
}
