import CardCrypto
import CardServer
import CardServices
import CardToken
import CardWire
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Membership
import MembershipSQL
import MembershipSQLite
import PeezAPI
import Synchronization
import TestSupport
import Testing

@Suite("API contract")
struct APIContractTests {
    // The wire itself: the OpenAPI document, read as schemathesis and other tools read it.
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
        let served = Set(
            buildRouter(cards: harness.cards, ledger: harness.store, metrics: ServerHarness.metrics).routes.map { "\($0.method.rawValue) \($0.path)" }
        )
        #expect(served == Self.documentedOperations)
        try await harness.database.close()
    }

    /// The statuses the document lists for each operation, by "METHOD /path".
    static var documentedStatuses: [String: Set<String>] {
        // The wire itself: the OpenAPI document's paths, as tools read them.
        let paths = document["paths"] as! [String: [String: Any]]
        var statuses: [String: Set<String>] = [:]
        for (path, operations) in paths {
            for (method, operation) in operations {
                // The wire itself: the OpenAPI document's operations, as tools read them.
                statuses["\(method.uppercased()) \(path)"] = Set(((operation as? [String: Any])?["responses"] as? [String: Any] ?? [:]).keys)
            }
        }
        return statuses
    }

    @Test func everyDocumentedOperationAnswersOnTheSocketWithAStatusTheDocumentLists() async throws {
        let documented = Self.documentedStatuses
        try await ServerHarness.withLiveServer { _, client in
            for operation in Self.documentedOperations {
                let parts = operation.split(separator: " ")
                let path = String(parts[1]).replacingOccurrences(of: "{uuid}", with: UUID().uuidString)
                    .replacingOccurrences(of: "{id}", with: UUID().uuidString).replacingOccurrences(of: "{serialNumber}", with: UUID().uuidString)
                    .replacingOccurrences(of: "{file}", with: "app.js").replacingOccurrences(of: "{seq}", with: "1")
                    .replacingOccurrences(of: "{deviceLibraryIdentifier}", with: "device1").replacingOccurrences(
                        of: "{passTypeIdentifier}",
                        with: "pass.dz.peez.card"
                    )
                let reply = try await client.send(HTTPRequest.Method(String(parts[0]))!, path, secret: ServerHarness.adminSecret)
                #expect(
                    documented[operation]?.contains(String(reply.status.code)) == true,
                    "\(operation) answered \(reply.status.code), not one it documents"
                )
                #expect(
                    !(reply.errorCode == "not_found"
                        && reply.error?.message.hasPrefix("No route") == true),
                    "\(operation)"
                )
            }
        }
    }

    @Test func errorsHaveOneShapeAndTheRightStatus() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let noRoute = try await client.send(.get, "/v1/nothing-here", secret: ServerHarness.adminSecret)
            #expect(noRoute.status == .notFound && noRoute.errorCode == "not_found")
            let notJSON = try await client.send(.post, "/v1/verify", secret: ServerHarness.adminSecret, raw: Array("{not json".utf8))
            #expect(notJSON.status == .badRequest && notJSON.errorCode == "bad_request")
            let tooLarge = try await client.send(
                .post,
                "/v1/verify",
                secret: ServerHarness.adminSecret,
                raw: Array("{\"token\": \"\(String(repeating: "A", count: 20_000))\"}".utf8)
            )
            #expect(
                tooLarge.status == .contentTooLarge && tooLarge.errorCode == "payload_too_large",
                "\(tooLarge.status) \(String(decoding: tooLarge.body, as: UTF8.self))"
            )
            let wrongType = try await client.send(.post, "/v1/verify", secret: ServerHarness.adminSecret, json: ["token": 42])
            #expect(wrongType.status == .unprocessableContent && wrongType.errorFields["token"] != nil)
            let badAuth = try await client.send(.get, "/v1/keys", headers: [.authorization: "Basic YWRtaW46YWRtaW4="])
            #expect(badAuth.status == .unauthorized)
            let lowerCaseScheme = try await client.send(.get, "/v1/keys", headers: [.authorization: "bearer \(ServerHarness.vendorSecret)"])
            #expect(lowerCaseScheme.status == .ok)
            let spacedOut = try await client.send(.get, "/v1/keys", headers: [.authorization: "Bearer  \t \(ServerHarness.vendorSecret) \t"])
            #expect(spacedOut.status == .ok, "optional whitespace around the secret is not part of it")
            let spaceInside = try await client.send(.get, "/v1/keys", headers: [.authorization: "Bearer x \(ServerHarness.vendorSecret)"])
            #expect(spaceInside.status == .unauthorized)
        }
    }

    @Test func keySetPublishesTheSigningKey() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let reply = try await client.send(.get, "/v1/keys", secret: ServerHarness.vendorSecret)
            let keys = try reply.decoded(KeySetDocument.self).keys
            #expect(keys.count == 1)
            #expect(keys.first?.kid == harness.signingKey.keyID.hex)
            #expect(keys.first?.status == .current)
            #expect(keys.first?.pem.hasPrefix("-----BEGIN PUBLIC KEY-----") == true)
            // The wire itself: no window recorded is sent as null, not left out.
            let sent = (reply.rawJSON["keys"] as? [[String: Any]])?.first
            #expect(sent?["published_at"] is NSNull && sent?["retired_at"] is NSNull, "no window was recorded")
        }
    }

    @Test func aSigningKeyOutsideItsOwnWindowIsRefusedBeforeItSignsAnything() throws {
        let key = try Ed25519PrivateKey.generate()
        let now: Int64 = 1_800_000_000
        func refusal(_ window: KeyValidityWindow) throws -> String? {
            try KeyRing(signingKey: key, publishedKeys: [], windows: [key.keyID: window]).signingRefusal(now: now)
        }
        #expect(try refusal(KeyValidityWindow(publishedAt: now - 10)) == nil)
        #expect(try refusal(KeyValidityWindow(publishedAt: now - 10, retiredAt: now + 10)) == nil)
        #expect(try refusal(KeyValidityWindow(retiredAt: now - 1))?.contains("after its key was retired") == true)
        #expect(try refusal(KeyValidityWindow(publishedAt: now + 60))?.contains("before its key was published") == true)
        #expect(try KeyRing(signingKey: key, publishedKeys: []).signingRefusal(now: now) == nil, "no recorded window, no bound")
    }

    @Test func healthIsPublicAndMetricsCountTheWork() async throws {
        try await ServerHarness.withLiveServer { _, client in
            #expect(try await client.send(.get, "/health").rawJSON["status"] as? String == "ok")
            func sample(_ name: String) async throws -> Double {
                let metrics = try await client.send(.get, "/metrics", secret: ServerHarness.adminSecret)
                #expect(metrics.status == .ok && metrics.headers[.contentType]?.hasPrefix("text/plain") == true)
                let line = String(decoding: metrics.body, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(name + " ") }
                return line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
            }
            let activationsBefore = try await sample("peez_activations_total")
            let replaysBefore = try await sample("peez_activation_replays_total")
            let issuedBefore = try await sample("peez_cards_issued_total")
            let member = try await client.createMember()
            let token = try await client.cardToken(member)
            #expect(try await client.activate(token: token, key: "metrics-1").status == .created)
            #expect(try await client.activate(token: token, key: "metrics-2").status == .created)
            #expect(try await client.activate(token: token, key: "metrics-2").status == .created)
            // Other tests run in this process at the same time and count too: the counters grew by at least
            // this test's own work.
            #expect(try await sample("peez_activations_total") - activationsBefore >= 2)
            #expect(try await sample("peez_activation_replays_total") - replaysBefore >= 1)
            #expect(try await sample("peez_cards_issued_total") - issuedBefore >= 3, "the first card and one per sale")
            let text = String(decoding: try await client.send(.get, "/metrics", secret: ServerHarness.adminSecret).body, as: UTF8.self)
            // Each request counted and timed per route, method and status, under Hummingbird's metric names.
            let route = #"http_route="/v1/members/{uuid}/card""#
            #expect(
                text.split(separator: "\n").contains {
                    $0.hasPrefix("hb_requests{") && $0.contains(route) && $0.contains(#"http_response_status_code="200""#)
                }
            )
            #expect(text.contains("http_server_request_duration"))
            #expect(text.contains("http_server_active_requests"))
        }
    }
}
