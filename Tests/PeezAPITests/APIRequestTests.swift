import Foundation
import Membership
import PeezAPI
import Testing

/// A request body declared once, as its properties: every missing or wrong field named in one answer, each by the
/// kind its type takes.
@Suite("Request bodies declared once")
struct APIRequestTests {
    func problems<T: APIRequest>(_ type: T.Type, _ json: String) -> [String: String] {
        do {
            _ = try RequestDecoding.decode(type, from: Array(json.utf8))
            return [:]
        } catch let error as MembershipError {
            return error.fields
        } catch {
            return ["": "\(error)"]
        }
    }

    @Test func everyWrongFieldIsNamedAtOnceByItsTypesKind() throws {
        #expect(
            problems(CreateCredentialRequest.self, #"{"role": "root", "vendor_id": "not-a-uuid", "label": 7}"#) == [
                "role": "must be one of: admin, backend, vendor", "vendor_id": "must be a UUID, e.g. 6f1c2a7e-8d4b-4e9a-9c3f-2b7d5e1a0c44",
                "label": "must be text",
            ]
        )
        #expect(problems(CreateCredentialRequest.self, #"{"vendor_id": null}"#) == ["role": "is required", "label": "is required"])
        #expect(
            problems(ActivationRequest.self, #"{"months": 2.0, "amount_dzd": "600"}"#) == [
                "months": "must be a whole number", "amount_dzd": "must be a whole number",
            ]
        )
        let decoded = try RequestDecoding.decode(
            CreateCredentialRequest.self,
            from: Array(#"{"role": "vendor", "label": "till 1", "extra": 1}"#.utf8)
        )
        #expect(decoded.role == .vendor && decoded.vendor_id == nil && decoded.label == "till 1", "null and absent alike; unknown fields ignored")
    }

    @Test func aJSONSchemaIntegerTakesSevenAndSevenPointZeroButNotSevenAndAHalf() throws {
        #expect(try RequestDecoding.decode(RotateCredentialRequest.self, from: Array(#"{"grace_seconds": 7.0}"#.utf8)).grace_seconds?.value == 7)
        #expect(try RequestDecoding.decode(RotateCredentialRequest.self, from: Array(#"{"grace_seconds": 7}"#.utf8)).grace_seconds?.value == 7)
        #expect(problems(RotateCredentialRequest.self, #"{"grace_seconds": 7.5}"#) == ["grace_seconds": "must be a whole number"])
        #expect(try RequestDecoding.decode(RotateCredentialRequest.self, from: Array("{}".utf8)).grace_seconds == nil)
    }

    @Test func aBodyEncodedByAClientIsReadBackAsItWasWritten() throws {
        let sent = ActivationRequest(membership_id: "PEEZ-20251103-00002", months: 2, amount_dzd: 600)
        let read = try RequestDecoding.decode(ActivationRequest.self, from: Array(try JSONEncoder().encode(sent)))
        #expect(read.membership_id == sent.membership_id && read.card_token == nil && read.months == 2 && read.amount_dzd == 600)
    }
}
