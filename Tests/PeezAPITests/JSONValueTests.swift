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
        for text in ["", "{", "NaN", "[1", "\"a"] { #expect(JSONValue(parsing: Array(text.utf8)) == nil, "\(text)") }
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
