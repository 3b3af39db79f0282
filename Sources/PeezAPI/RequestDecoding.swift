public import Foundation
public import Membership

/// Reading a request body into its typed request: every field problem at once, then the typed value.
public enum RequestDecoding {
    /// Reads `T` from `bytes`, parsed once: ``MalformedRequestBody`` when it is not a JSON object, a domain
    /// `invalidFields` error naming every field that is missing or of the wrong kind, all at once.
    public static func decode<T: APIRequest>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        let checker = FieldCheckingDecoder(try object(in: bytes))
        let value = try T(from: checker)
        guard checker.problems.isEmpty else { throw invalidFields(checker.problems) }
        return value
    }

    /// The JSON object `bytes` hold: ``MalformedRequestBody`` when they are not one, and a domain
    /// `invalidFields` error naming a member given twice (which value would be meant?).
    public static func object(in bytes: [UInt8]) throws -> [String: JSONValue] {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch .duplicateMember(let name) {
            throw invalidFields([name: "appears more than once in the body: send each field once"])
        } catch {
            throw MalformedRequestBody("The body is not a JSON object.")
        }
        guard let object = value.object else { throw MalformedRequestBody("The body is not a JSON object.") }
        return object
    }

    /// The domain error naming every field that is missing or wrong (answered 422).
    public static func invalidFields(_ problems: [String: String]) -> MembershipError {
        MembershipError(
            .invalidFields,
            problems.count == 1 ? "A field is missing or invalid." : "\(problems.count) fields are missing or invalid.",
            fields: problems
        )
    }

    /// `value` in its canonical JSON form (keys sorted, absent and null alike): what a request means rather
    /// than how a client spelt it, so a retry that orders its keys otherwise is the same request.
    public static func canonical(_ value: some Encodable) throws -> [UInt8] {
        Array(try APIJSON.encoder.encode(value))
    }
}

/// A body that is not JSON, or not of the shape its route takes (answered 400).
public struct MalformedRequestBody: Error, Hashable, CustomStringConvertible {
    public let reason: String

    public init(_ reason: String) { self.reason = reason }

    public var description: String { reason }
}

/// The API's one JSON encoder: keys sorted, slashes as they are.
public enum APIJSON {
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    public static func encode(_ value: some Encodable) throws -> [UInt8] {
        Array(try encoder.encode(value))
    }
}
