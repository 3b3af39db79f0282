import Foundation
import HTTPTypes
import HummingbirdTesting
import PeezAPI
import TestSupport
import Testing

@Suite("Request bodies")
struct RequestBodyTests {
    @Test(arguments: ["1.5", "1e30", "1.0", "true", "\"1\"", "[1]"])
    func aNumberOfTheWrongKindIsA422NamingTheField(months: String) async throws {
        try await ServerHarness.withLiveServer { _, client in
            let body = #"{"membership_id": "PEEZ-20260131-00001", "months": \#(months), "amount_dzd": 300}"#
            let reply = try await client.send(
                .post,
                "/v1/activations",
                secret: ServerHarness.vendorSecret,
                raw: Array(body.utf8),
                headers: [.contentType: "application/json", HTTPField.Name("Idempotency-Key")!: UUID().uuidString]
            )
            #expect(reply.status == .unprocessableContent, "\(months): \(reply.status)")
            #expect(reply.errorFields == ["months": "must be a whole number"], "\(months)")
        }
    }

    @Test func everyMissingOrMistypedFieldIsNamedAtOnce() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let body = #"{"uuid": "not-a-uuid", "name": 7, "language": "de", "unknown": true}"#
            let reply = try await client.send(
                .post,
                "/v1/members",
                secret: ServerHarness.backendSecret,
                raw: Array(body.utf8),
                headers: [.contentType: "application/json"]
            )
            #expect(reply.status == .unprocessableContent)
            #expect(
                reply.errorFields == [
                    "uuid": "must be a UUID, e.g. 6f1c2a7e-8d4b-4e9a-9c3f-2b7d5e1a0c44", "name": "must be text",
                    "phone": "is required", "email": "is required", "neighbourhood": "is required",
                    "language": "must be one of: fr, ar",
                ]
            )
            let empty = try await client.send(
                .post,
                "/v1/vendors",
                secret: ServerHarness.adminSecret,
                raw: Array("{}".utf8),
                headers: [.contentType: "application/json"]
            )
            #expect(empty.errorFields == ["name": "is required", "category": "is required", "neighbourhood": "is required"])
        }
    }

    @Test(arguments: ["[]", "\"text\"", "{", ""])
    func aBodyThatIsNotAJSONObjectIsA400(body: String) async throws {
        try await ServerHarness.withLiveServer { _, client in
            let reply = try await client.send(
                .post,
                "/v1/verify",
                secret: ServerHarness.vendorSecret,
                raw: Array(body.utf8),
                headers: [.contentType: "application/json"]
            )
            #expect(reply.status == .badRequest && reply.errorCode == "bad_request", "\(body.debugDescription): \(reply.status)")
        }
    }

    @Test func nullIsAbsentForAnOptionalFieldAndMissingForARequiredOne() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let uuid = try await client.createMember()
            let patched = try await client.send(
                .patch,
                "/v1/members/\(uuid)",
                secret: ServerHarness.backendSecret,
                raw: Array(#"{"name": "Amina Benali", "email": null}"#.utf8),
                headers: [.contentType: "application/json"]
            )
            #expect(try patched.status == .ok && patched.decoded(MemberBody.self).name == "Amina Benali")
            let verify = try await client.send(
                .post,
                "/v1/verify",
                secret: ServerHarness.vendorSecret,
                raw: Array(#"{"token": null}"#.utf8),
                headers: [.contentType: "application/json"]
            )
            #expect(verify.status == .unprocessableContent && verify.errorFields == ["token": "is required"])
        }
    }

    /// Also proves the handler reading the body learns of the hang-up: before, a cut-off body's parser error
    /// was answered by ParserErrorResponder and the handler waited for the rest until the body deadline.
    @Test func aClientThatHangsUpMidBodyIsNotCountedAsAServerError() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let port = try #require(client.port)
            /// Requests to POST /v1/activations answered with a 5xx, and with anything else.
            func activations() async throws -> (serverErrors: Double, others: Double) {
                let text = String(decoding: try await client.send(.get, "/metrics", secret: ServerHarness.adminSecret).body, as: UTF8.self)
                let lines = text.split(separator: "\n").filter {
                    $0.hasPrefix("hb_requests{") && $0.contains("/v1/activations") && $0.contains("POST")
                }
                func sum(_ lines: [Substring]) -> Double { lines.compactMap { Double($0.split(separator: " ").last ?? "") }.reduce(0, +) }
                let serverErrors = lines.filter { $0.contains("status_code=\"5") }
                return (sum(serverErrors), sum(lines) - sum(serverErrors))
            }
            let before = try await activations()
            for round in 0..<3 {
                // Declares 100 bytes, sends 10, hangs up: at once, or once the service has begun reading the body.
                let head =
                    "POST /v1/activations HTTP/1.1\r\nHost: peez\r\nAuthorization: Bearer \(ServerHarness.vendorSecret)\r\n"
                    + "Idempotency-Key: \(UUID())\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"months\":"
                let connection = try RawConnection(port: port)
                #expect(connection.send(head))
                if round > 0 { try await Task.sleep(for: .milliseconds(100 * round)) }
                withExtendedLifetime(connection) {}
            }
            // The service notices each hang-up when it next reads; give a busy machine time to count all three.
            var after = try await activations()
            for _ in 0..<50 where after.others < before.others + 3 {
                try await Task.sleep(for: .milliseconds(100))
                after = try await activations()
            }
            #expect(after.serverErrors == before.serverErrors, "a client's broken-off body raised the 5xx count")
            #expect(after.others >= before.others + 3, "the broken-off requests were counted, as client errors")
            #expect(try await client.send(.get, "/health").status == .ok)
        }
    }
}
