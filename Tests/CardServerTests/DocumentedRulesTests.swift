import CardToken
import Foundation
import HTTPTypes
import HummingbirdTesting
import PeezAPI
import TestSupport
import Testing

/// Behaviour the OpenAPI document states and schemathesis relies on (Tests/API/run), each proved here on its own.
@Suite("Documented rules")
struct DocumentedRulesTests {
    @Test func aMethodAPathDoesNotServeIsA405NamingTheMethodsItDoes() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let reply = try await client.send(.delete, "/v1/members/\(UUID())", secret: ServerHarness.backendSecret)
            #expect(reply.status == .methodNotAllowed && reply.errorCode == "method_not_allowed")
            #expect(reply.headers[.allow] == "GET, HEAD, PATCH")
            let keys = try await client.send(.put, "/v1/keys", secret: ServerHarness.vendorSecret)
            #expect(keys.status == .methodNotAllowed && keys.headers[.allow] == "GET, HEAD")
            #expect(try await client.send(.get, "/v1/nowhere", secret: ServerHarness.vendorSecret).status == .notFound)
        }
    }

    @Test(arguments: ["0", "1001", "-5", "ten", "1e3", " 5"])
    func aListLimitOutsideOneToAThousandIsA422(limit: String) async throws {
        try await ServerHarness.withLiveServer { _, client in
            let encoded = limit.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? limit
            let reply = try await client.send(.get, "/v1/activations?limit=\(encoded)", secret: ServerHarness.vendorSecret)
            #expect(reply.status == .unprocessableContent && reply.errorFields.keys.contains("limit"), "\(limit)")
            #expect(try await client.send(.get, "/v1/activations?limit=1000", secret: ServerHarness.vendorSecret).status == .ok)
        }
    }

    @Test func anIdempotencyKeyMustBeVisibleASCII() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let member = try await client.createMember()
            let token = try await client.cardToken(member)
            #expect(try await client.activate(token: token, key: "clé-à-usage-unique").status == .badRequest)
            #expect(try await client.activate(token: token, key: String(repeating: "k", count: 256)).status == .badRequest)
            #expect(try await client.activate(token: token, key: "sale-0001").status == .created)
        }
    }

    @Test func neighbourhoodsAndCategoriesAreServedInFrenchAndArabic() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let neighbourhoods =
                try await client.send(.get, "/v1/neighbourhoods", secret: ServerHarness.vendorSecret).rawJSON["neighbourhoods"] as? [[String: String]]
            let categories =
                try await client.send(.get, "/v1/categories", secret: ServerHarness.backendSecret).rawJSON["categories"] as? [[String: String]]
            #expect(neighbourhoods?.count == 16 && categories?.count == 12)
            #expect(
                neighbourhoods?.first(where: { $0["id"] == "sidi-el-houari" }) == [
                    "id": "sidi-el-houari", "name_fr": "Sidi El Houari", "name_ar": "سيدي الهواري",
                ]
            )
            #expect(
                (neighbourhoods ?? []).allSatisfy {
                    $0["name_fr"]?.isEmpty == false && $0["name_ar"]?.unicodeScalars.contains { (0x0600...0x06FF).contains($0.value) } == true
                }
            )
            #expect(try await client.send(.get, "/v1/categories").status == .unauthorized)
        }
    }

    @Test func aLongNameIsKeptWholeAndTheCardShowsAsMuchAsFits() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let kept = String(repeating: "محمد ", count: 25) + "علي"  // 128 characters, 231 bytes of UTF-8
            let name = kept + "ب"
            #expect(kept.unicodeScalars.count == 128)
            let refused = try await client.send(
                .post,
                "/v1/members",
                secret: ServerHarness.backendSecret,
                json: [
                    "uuid": UUID().uuidString, "name": name, "phone": "+213661234567", "email": "long@example.dz", "neighbourhood": "usto",
                ]
            )
            #expect(refused.status == .unprocessableContent && refused.errorFields.keys.contains("name"))
            let member = try await client.createMember(name: kept)
            #expect(try await client.send(.get, "/v1/members/\(member)", secret: ServerHarness.backendSecret).decoded(MemberBody.self).name == kept)
            let card = try await client.send(.get, "/v1/members/\(member)/card", secret: ServerHarness.backendSecret).decoded(CardBody.self)
            #expect(card.member.name == kept, "the API shows the whole name")
            let verified = try await client.send(.post, "/v1/verify", secret: ServerHarness.vendorSecret, json: ["token": card.token])
            let onCard = try #require(try verified.decoded(VerifyBody.self).name)
            #expect(onCard.utf8.count <= CardClaims.maxNameBytes && kept.hasPrefix(onCard) && onCard.count > 50)
        }
    }

    @Test func coverageAlwaysSendsEndsAtNullUntilTheMemberPays() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let member = try await client.createMember()
            let reply = try await client.send(.get, "/v1/members/\(member)/subscription", secret: ServerHarness.backendSecret)
            // The wire itself: ends_at is sent as null, not left out (a decoded body could not tell).
            let coverage = try #require(reply.rawJSON["coverage"] as? [String: Any])
            #expect(coverage["ends_at"] is NSNull && coverage["days_left"] as? Int == 0)
        }
    }

    @Test(arguments: [
        ("GARBAGE\r\n\r\n", "HTTP/1.1 400", "bad_request"),
        ("GET /health HTTP/1.1\r\nHost: peez\r\nContent-Length: abc\r\n\r\n", "HTTP/1.1 400", "bad_request"),
        ("GET /health HTTP/1.1\r\nX-Big: " + String(repeating: "a", count: 90_000) + "\r\n\r\n", "HTTP/1.1 431", "headers_too_large"),
    ])
    func aRequestThatIsNotHTTPIsAnsweredInTheErrorShape(raw: String, status: String, code: String) async throws {
        try await ServerHarness.withLiveServer { _, client in
            let connection = try RawConnection(port: try #require(client.port))
            connection.send(raw)
            let answer = try #require(await connection.readUntilClosed(within: .seconds(10)))
            #expect(answer.hasPrefix(status) && answer.contains(#"{"error":{"code":"\#(code)""#), "\(answer.prefix(300))")
        }
    }

    @Test func requestDurationsCountErrorAnswersToo() async throws {
        try await ServerHarness.withLiveServer { _, client in
            func unauthenticatedKeyRequests() async throws -> Double {
                let text = String(decoding: try await client.send(.get, "/metrics", secret: ServerHarness.adminSecret).body, as: UTF8.self)
                let line = text.split(separator: "\n").first {
                    $0.hasPrefix("http_server_request_duration_count{") && $0.contains(#"http_route="/v1/keys""#)
                        && $0.contains(#"status_code="401""#)
                }
                return line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
            }
            let before = try await unauthenticatedKeyRequests()
            for _ in 0..<3 { #expect(try await client.send(.get, "/v1/keys").status == .unauthorized) }
            // Other suites share the process's metrics and may add their own.
            #expect(try await unauthenticatedKeyRequests() >= before + 3)
        }
    }
}
