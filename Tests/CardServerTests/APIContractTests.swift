import CardCrypto
import CardServer
import CardToken
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Membership
import MembershipSQL
import MembershipSQLite
import Synchronization
import TestSupport
import Testing

@Suite("API contract")
struct APIContractTests {
    static var document: [String: Any] {
        let url = Bundle.module.url(forResource: "openapi", withExtension: "json")!
        return try! JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
    }

    static var documentedOperations: Set<String> {
        let paths = document["paths"] as! [String: [String: Any]]
        return Set(paths.flatMap { path, operations in operations.keys.map { "\($0.uppercased()) \(path)" } })
    }

    @Test func servedRoutesAreExactlyTheOpenAPIDocument() async throws {
        let harness = try await ServerHarness.make()
        defer { harness.folder.remove() }
        let served = Set(buildRouter(cards: harness.cards).routes.operations)
        #expect(served == Self.documentedOperations)
        try await harness.database.close()
    }

    @Test func everyDocumentedOperationAnswersOnTheSocket() async throws {
        try await ServerHarness.withLiveServer { _, client in
            for operation in Self.documentedOperations {
                let parts = operation.split(separator: " ")
                let path = String(parts[1]).replacingOccurrences(of: "{uuid}", with: UUID().uuidString).replacingOccurrences(of: "{id}", with: UUID().uuidString)
                let reply = try await client.send(HTTPRequest.Method(String(parts[0]))!, path, secret: ServerHarness.adminSecret)
                #expect(reply.status != .methodNotAllowed, "\(operation)")
                #expect(!(reply.errorCode == "not_found" && (reply.json["error"] as? [String: Any])?["message"].map { "\($0)".hasPrefix("No route") } == true), "\(operation)")
            }
        }
    }

    @Test func errorsHaveOneShapeAndTheRightStatus() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let noRoute = try await client.send(.get, "/v1/nothing-here", secret: ServerHarness.adminSecret)
            #expect(noRoute.status == .notFound && noRoute.errorCode == "not_found")
            let notJSON = try await client.send(.post, "/v1/verify", secret: ServerHarness.adminSecret, raw: Array("{not json".utf8))
            #expect(notJSON.status == .badRequest && notJSON.errorCode == "bad_request")
            let tooLarge = try await client.send(.post, "/v1/verify", secret: ServerHarness.adminSecret,
                                                 raw: Array("{\"token\": \"\(String(repeating: "A", count: 20_000))\"}".utf8))
            #expect(tooLarge.status == .contentTooLarge && tooLarge.errorCode == "payload_too_large", "\(tooLarge.status) \(String(decoding: tooLarge.body, as: UTF8.self))")
            let wrongType = try await client.send(.post, "/v1/verify", secret: ServerHarness.adminSecret, json: ["token": 42])
            #expect(wrongType.status == .unprocessableContent && wrongType.errorFields["token"] != nil)
            let badAuth = try await client.send(.get, "/v1/keys", headers: [.authorization: "Basic YWRtaW46YWRtaW4="])
            #expect(badAuth.status == .unauthorized)
            let lowerCaseScheme = try await client.send(.get, "/v1/keys", headers: [.authorization: "bearer \(ServerHarness.vendorSecret)"])
            #expect(lowerCaseScheme.status == .ok)
        }
    }

    @Test func keySetPublishesTheSigningKey() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let keys = try await client.send(.get, "/v1/keys", secret: ServerHarness.vendorSecret).json["keys"] as? [[String: Any]]
            #expect(keys?.count == 1)
            #expect(keys?.first?["kid"] as? String == harness.signingKey.keyID.hex)
            #expect(keys?.first?["status"] as? String == "current")
            #expect((keys?.first?["pem"] as? String)?.hasPrefix("-----BEGIN PUBLIC KEY-----") == true)
        }
    }

    @Test func healthIsPublicAndMetricsCountTheWork() async throws {
        try await ServerHarness.withLiveServer { _, client in
            #expect(try await client.send(.get, "/health").json["status"] as? String == "ok")
            let member = try await client.createMember()
            _ = try await client.activate(token: try await client.cardToken(member))
            let metrics = try await client.send(.get, "/metrics", secret: ServerHarness.adminSecret)
            let text = String(decoding: metrics.body, as: UTF8.self)
            #expect(metrics.status == .ok && metrics.headers[.contentType]?.hasPrefix("text/plain") == true)
            #expect(text.contains("peez_activations_total"))
            #expect(text.contains("peez_cards_issued_total"))
            #expect(text.contains("hb_requests"))
        }
    }
}
