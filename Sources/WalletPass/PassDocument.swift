import Foundation

/// `pass.json` as `peez wallet check` reads a pass from anywhere: the fields Wallet requires, each recorded as
/// absent, present with the type Wallet wants, or present with another type, so that every check reports on its
/// own field rather than the whole file failing to decode.
struct PassDocument: Decodable {
    /// One field as found.
    enum Field<Value: Decodable>: Decodable {
        case absent
        case value(Value)
        /// Present, but not of the type Wallet reads.
        case wrongType

        init(from decoder: any Decoder) throws {
            do {
                self = .value(try decoder.singleValueContainer().decode(Value.self))
            } catch is DecodingError {
                self = .wrongType
            }
        }

        var value: Value? {
            if case .value(let value) = self { return value }
            return nil
        }
    }

    /// A barcode entry: the fields the counter needs.
    struct Barcode: Decodable {
        var format: Field<String> = .absent
        var message: Field<String> = .absent

        enum CodingKeys: String, CodingKey { case format, message }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            format = try container.decodeIfPresent(Field<String>.self, forKey: .format) ?? .absent
            message = try container.decodeIfPresent(Field<String>.self, forKey: .message) ?? .absent
        }
    }

    /// The text keys Wallet requires.
    static let requiredText = ["passTypeIdentifier", "serialNumber", "teamIdentifier", "organizationName", "description"]
    /// The pass styles, of which a pass has exactly one.
    static let styles = ["boardingPass", "coupon", "eventTicket", "generic", "storeCard"]

    /// Each required text key, as found.
    var text: [String: Field<String>] = [:]
    var formatVersion: Field<Int> = .absent
    /// The style keys present.
    var stylesPresent: [String] = []
    var barcodes: Field<[Barcode]> = .absent

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        for name in Self.requiredText {
            text[name] = try container.decodeIfPresent(Field<String>.self, forKey: Key(stringValue: name)) ?? .absent
        }
        formatVersion = try container.decodeIfPresent(Field<Int>.self, forKey: Key(stringValue: "formatVersion")) ?? .absent
        stylesPresent = Self.styles.filter { container.contains(Key(stringValue: $0)) }
        barcodes = try container.decodeIfPresent(Field<[Barcode]>.self, forKey: Key(stringValue: "barcodes")) ?? .absent
    }

    /// `bytes` read as a JSON object, or why not.
    static func read(_ bytes: [UInt8]) -> Result<PassDocument, any Error> {
        Result { try JSONDecoder().decode(PassDocument.self, from: Data(bytes)) }
    }

    /// `bytes` read as a JSON object; nil when they are not one (the check says so: it is a finding, not a loss).
    static func readIfObject(_ bytes: [UInt8]) -> PassDocument? {
        guard case .success(let document) = read(bytes) else { return nil }
        return document
    }
}
