import CardToken
import Foundation
import Membership
import PeezAPI
import Testing

/// Request bodies as the API reads them: parsed once, each number kept as it was written.
@Suite("JSON values")
struct JSONValueTests {
    @Test func anIntegerLiteralIsKeptApartFromANumberWithAFractionOrAnExponent() throws {
        let body = #"{"a": 7, "b": 7.0, "c": 7e0, "d": true, "e": null, "f": "7", "g": [1, {"h": -42}], "i": 18446744073709551615}"#
        let object = try #require(JSONValue(parsing: Array(body.utf8))?.object)
        #expect(object["a"] == .integer(7))
        #expect(object["b"] == .number(7) && object["c"] == .number(7))
        #expect(object["d"] == .bool(true) && object["e"] == .null && object["f"] == .string("7"))
        #expect(object["g"] == .array([.integer(1), .object(["h": .integer(-42)])]))
        #expect(object["i"] == .number(18_446_744_073_709_551_615), "beyond 64 bits: not an integer")
    }

    @Test func textThatIsNotJSONIsNoValue() {
        let notJSON = [
            "", "{", "NaN", "[1", "\"a", "{\"a\":1,}", "[1,]", "01", "1.", ".5", "-", "1e", "+1", "'a'", "{a:1}", "[1] [2]",
            "\"\\x\"", "\"\\u12\"", "\"\u{01}\"", "tru", "nul", "1e999", "\"\\ud800\"", "\"\\udc00\\ud800\"",
        ]
        for text in notJSON { #expect(JSONValue(parsing: Array(text.utf8)) == nil, "\(text)") }
        #expect(JSONValue(parsing: [0x22, 0xC3, 0x28, 0x22]) == nil, "invalid UTF-8 inside a string")
    }

    @Test func escapesAndSurrogatePairsDecodeToTheirCharacters() throws {
        let text = #" ["\u00e9t\u00E9", "\ud83d\ude00", "a\/b\\\"\n\t", "وهران"] "#
        #expect(JSONValue(parsing: Array(text.utf8)) == .array([.string("été"), .string("😀"), .string("a/b\\\"\n\t"), .string("وهران")]))
    }

    @Test func aMemberNamedTwiceIsRefusedAtAnyDepthAndNamed() {
        #expect(throws: JSONParseError.duplicateMember("public_key")) {
            try JSONValue.parse(Array(#"{"public_key": "A", "public_key": "B"}"#.utf8))
        }
        #expect(throws: JSONParseError.duplicateMember("h")) { try JSONValue.parse(Array(#"{"g": [{"h": 1, "h": 1}]}"#.utf8)) }
        #expect(throws: JSONParseError.duplicateMember("é"), "the same name escaped differently is the same name") {
            try JSONValue.parse(Array(#"{"é": 1, "\u00e9": 2}"#.utf8))
        }
    }

    @Test func nestingIsBoundedSoADeepBodyCannotExhaustTheStack() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Array(deep.utf8)) }
        let fine = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(JSONValue(parsing: Array(fine.utf8)) != nil)
    }

    @Test func aRequestNamingAFieldTwiceIsAnInvalidFieldsErrorNamingIt() throws {
        do {
            _ = try RequestDecoding.decode(ActivationRequest.self, from: Array(#"{"months": 1, "months": 3, "amount_dzd": 300}"#.utf8))
            Issue.record("a body naming months twice was read")
        } catch let error as MembershipError {
            #expect(error.code == .invalidFields && error.fields["months"]?.contains("more than once") == true)
        }
    }

    @Test func aSaleBodyNamesEveryWrongFieldAtOnceAndAcceptsAWholeNumberOnlyAsAnIntegerLiteral() throws {
        #expect(throws: MalformedRequestBody.self) { try RequestDecoding.decode(ActivationRequest.self, from: Array("[1]".utf8)) }
        do {
            _ = try RequestDecoding.decode(ActivationRequest.self, from: Array(#"{"months": 1.0, "card_token": 5}"#.utf8))
            Issue.record("a body with three wrong fields was read")
        } catch let error as MembershipError {
            #expect(error.fields == ["months": "must be a whole number", "card_token": "must be text", "amount_dzd": "is required"])
        }
        let sale = try RequestDecoding.decode(
            ActivationRequest.self,
            from: Array(#"{"membership_id": "PEEZ-20251103-00001", "months": 2, "amount_dzd": 600}"#.utf8)
        )
        #expect(sale.months == 2 && sale.amount_dzd == 600 && sale.membership_id == "PEEZ-20251103-00001" && sale.card_token == nil)
    }
}

/// The phone key the device-key route takes: a point of the curve, by the shared vectors.
@Suite("Device keys")
struct DeviceKeyRequestTests {
    struct Vectors: Decodable {
        struct Vector: Decodable {
            var public_key: String
            var on_curve: Bool
            var note: String
        }
        var vectors: [Vector]
    }

    @Test func aKeyThatIsNoPointOfTheCurveIsRefusedNamingTheField() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/vectors/device-key-points.json")
        let vectors = try JSONDecoder().decode(Vectors.self, from: Data(contentsOf: url)).vectors
        #expect(vectors.count > 60 && vectors.contains { !$0.on_curve } && vectors.contains { $0.on_curve })
        for vector in vectors {
            guard let key = try? DeviceKey(base64url: vector.public_key) else { continue }  // small order: refused earlier
            #expect(key.isOnCurve == vector.on_curve, "\(vector.public_key): \(vector.note)")
            do {
                _ = try DeviceKeyRequest(public_key: vector.public_key).deviceKey()
                #expect(vector.on_curve, "\(vector.public_key) was taken: \(vector.note)")
            } catch {
                #expect(!vector.on_curve && error.fields["public_key"]?.contains("not a point") == true, "\(vector.public_key): \(vector.note)")
            }
        }
    }
}
