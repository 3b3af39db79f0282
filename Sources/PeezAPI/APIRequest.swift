public import Foundation
public import Membership

/// A request body declared once: its stored properties are its fields, named as on the wire, and each property's
/// type says what the field must hold (``RequestFieldValue``); an Optional one may be absent or null. Read by
/// ``RequestDecoding/decode(_:from:)``, which names every missing or wrong field at once.
public protocol APIRequest: Codable, Sendable {}

/// A type a request field may have, with the kind of JSON value it takes.
public protocol RequestFieldValue: Sendable {
    /// What the field must hold, for its problem's words.
    static var kind: FieldKind { get }
    /// The value of `json`, or nil when it is not of this kind.
    init?(json: JSONValue)
    /// Stands in for a missing or wrong value until every problem is named (never returned to a caller).
    static var placeholder: Self { get }
}

extension String: RequestFieldValue {
    public static var kind: FieldKind { .text }
    public init?(json: JSONValue) {
        guard case .string(let text) = json else { return nil }
        self = text
    }
    public static var placeholder: String { "" }
}

extension Int: RequestFieldValue {
    /// An integer literal: 1.5, 1e30 and 2.0 are not.
    public static var kind: FieldKind { .wholeNumber }
    public init?(json: JSONValue) {
        guard case .integer(let number) = json else { return nil }
        self = Int(clamping: number)
    }
    public static var placeholder: Int { 0 }
}

extension Bool: RequestFieldValue {
    public static var kind: FieldKind { .boolean }
    public init?(json: JSONValue) {
        guard case .bool(let flag) = json else { return nil }
        self = flag
    }
    public static var placeholder: Bool { false }
}

extension UUID: RequestFieldValue {
    public static var kind: FieldKind { .uuid }
    public init?(json: JSONValue) {
        guard case .string(let text) = json, let uuid = UUID(strictText: text) else { return nil }
        self = uuid
    }
    public static var placeholder: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
}

/// A whole number as JSON Schema counts one: 7 or 7.0, within 64 bits (a field whose document says `integer`
/// and takes what any JSON encoder writes).
public struct Integral: RequestFieldValue, Codable, Hashable {
    public var value: Int

    public init(_ value: Int) { self.value = value }

    public static var kind: FieldKind { .integer }
    public init?(json: JSONValue) {
        switch json {
        case .integer(let number): value = Int(clamping: number)
        case .number(let number) where number == number.rounded() && abs(number) < 0x1p63: value = Int(number)
        default: return nil
        }
    }
    public static var placeholder: Integral { Integral(0) }

    public init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Int.self) }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

/// A field that takes one of a fixed set of strings: an enum of them.
public protocol RequestChoice: RequestFieldValue, RawRepresentable<String>, CaseIterable {}

extension RequestChoice {
    public static var kind: FieldKind { .oneOf(allCases.map(\.rawValue)) }
    public init?(json: JSONValue) {
        guard case .string(let text) = json else { return nil }
        self.init(rawValue: text)
    }
    public static var placeholder: Self { allCases.first! }
}

extension Member.Language: RequestChoice {}
extension Role: RequestChoice {}

/// Decodes an ``APIRequest`` from a parsed JSON object, recording a problem for each field that is missing or of
/// the wrong kind instead of stopping at the first.
final class FieldCheckingDecoder: Decoder {
    let object: [String: JSONValue]
    private(set) var problems: [String: String] = [:]
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ object: [String: JSONValue]) { self.object = object }

    func note(_ field: String, _ problem: String) { problems[field] = problem }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Fields<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: [], debugDescription: "a request body is a JSON object"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(Any.self, .init(codingPath: [], debugDescription: "a request body is a JSON object"))
    }

    struct Fields<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: FieldCheckingDecoder
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { decoder.object.keys.compactMap(Key.init(stringValue:)) }

        func contains(_ key: Key) -> Bool { decoder.object[key.stringValue] != nil }

        func decodeNil(forKey key: Key) -> Bool { (decoder.object[key.stringValue] ?? .null) == .null }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            guard let field = type as? any RequestFieldValue.Type else {
                throw DecodingError.typeMismatch(type, .init(codingPath: [key], debugDescription: "\(type) is not a request field's type"))
            }
            return try read(field, key) as! T
        }

        private func read<F: RequestFieldValue>(_ field: F.Type, _ key: Key) throws -> F {
            let name = key.stringValue
            guard let json = decoder.object[name], json != .null else {
                decoder.note(name, "is required")
                return F.placeholder
            }
            guard let value = F(json: json) else {
                decoder.note(name, F.kind.problem(json) ?? "is not valid")
                return F.placeholder
            }
            return value
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            throw DecodingError.typeMismatch(type, .init(codingPath: [key], debugDescription: "request fields are flat"))
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw DecodingError.typeMismatch([Any].self, .init(codingPath: [key], debugDescription: "request fields are flat"))
        }

        func superDecoder() throws -> any Decoder { decoder }
        func superDecoder(forKey key: Key) throws -> any Decoder { decoder }
    }
}
