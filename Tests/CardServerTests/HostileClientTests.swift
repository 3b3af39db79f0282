import Foundation
import HTTPTypes
import HummingbirdTesting
import Membership
import PeezAPI
import TestSupport
import Testing

/// What a hostile or careless client tried, on a real socket: HTTP at its edges, UUIDs with junk, scan times
/// no clock can read.
@Suite("Hostile clients")
struct HostileClientTests {
    /// Sends `bytes` raw and returns all the server sent before it closed (nil if it stayed open).
    static func raw(_ bytes: String, port: Int) async throws -> String? {
        let connection = try RawConnection(port: port)
        connection.send(bytes)
        return await connection.readUntilClosed(within: .seconds(5))
    }

    @Test func headIsAnsweredOnEveryGetRouteAsGetWithoutItsBody() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let uuid = try await client.createMember()
            for path in ["/health", "/v1/members/\(uuid)/card", "/v1/members/\(uuid)", "/v1/keys", "/v1/neighbourhoods"] {
                let secret = path == "/health" ? nil : ServerHarness.backendSecret
                let get = try await client.send(.get, path, secret: secret)
                let head = try await client.send(.head, path, secret: secret)
                #expect(get.status == .ok && head.status == .ok, "HEAD \(path): \(head.status)")
                #expect(head.body.isEmpty && head.headers[.contentLength] == String(get.body.count), "HEAD \(path) says GET's length, sends no body")
            }
            let port = try #require(client.port)
            let answer = try #require(await Self.raw("HEAD /health HTTP/1.1\r\nHost: peez\r\nConnection: close\r\n\r\n", port: port))
            #expect(answer.hasPrefix("HTTP/1.1 200") && answer.hasSuffix("\r\n\r\n"), "no body on the wire: \(answer)")
            #expect(
                try await client.send(.head, "/v1/counter/scans", secret: ServerHarness.vendorSecret).status == .methodNotAllowed,
                "HEAD only where GET is"
            )
        }
    }

    @Test func connectIsAnsweredAtOnceWithABodyAndTheConnectionClosed() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let answer = try await Self.raw("CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n", port: try #require(client.port))
            let lowered = answer?.lowercased() ?? ""
            #expect(
                answer?.hasPrefix("HTTP/1.1 501") == true && answer?.contains(#""code":"not_implemented""#) == true
                    && lowered.contains("content-length:") && lowered.contains("connection: close"),
                "\(answer ?? "still open")"
            )
        }
    }

    @Test(arguments: [
        ("GET /health HTTP/1.1\nHost: peez\n\n", "400"),
        ("GET /health\r\n\r\n", "400"),
        ("GET /health HTTP/1.1 extra\r\n\r\n", "400"),
        ("GET /health HTTP/2.0\r\nHost: peez\r\n\r\n", "505"),
        ("GET /health HTTP/3.0\r\nHost: peez\r\n\r\n", "505"),
    ])
    func aMalformedRequestLineIsTheClientsFault400OnlyAnotherVersionIs505(request: String, status: String) async throws {
        try await ServerHarness.withLiveServer { _, client in
            let answer = try await Self.raw(request, port: try #require(client.port))
            #expect(answer?.hasPrefix("HTTP/1.1 \(status)") == true, "\(request.debugDescription): \(answer ?? "still open")")
        }
    }

    @Test func aUUIDIsExactly36CharactersOfItsGrammarInEveryBodyPathAndAnswer() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let valid = UUID().uuidString
            for junk in ["\u{0}<script>", "\u{0}", " ", "x", "\n"] {
                let created = try await client.send(
                    .post,
                    "/v1/members",
                    secret: ServerHarness.backendSecret,
                    json: [
                        "uuid": valid + junk, "name": "Amina", "phone": "+213661234567", "email": "a@example.dz", "neighbourhood": "usto",
                    ]
                )
                #expect(created.status == .unprocessableContent && created.errorFields["uuid"] != nil, "\(junk.debugDescription): \(created.status)")
            }
            for bad in ["{\(valid)}", String(valid.dropLast()), valid.replacingOccurrences(of: "-", with: "")] {
                let created = try await client.send(
                    .post,
                    "/v1/members",
                    secret: ServerHarness.backendSecret,
                    json: [
                        "uuid": bad, "name": "Amina", "phone": "+213661234567", "email": "a@example.dz", "neighbourhood": "usto",
                    ]
                )
                #expect(created.status == .unprocessableContent, "\(bad)")
            }
            let created = try await client.send(
                .post,
                "/v1/members",
                secret: ServerHarness.backendSecret,
                json: [
                    "uuid": valid, "name": "Amina", "phone": "+213661234567", "email": "a@example.dz", "neighbourhood": "usto",
                ]
            )
            #expect(try created.status == .created && created.decoded(MemberBody.self).uuid == valid.lowercased(), "answered in lower case")
            let byUpper = try await client.send(.get, "/v1/members/\(valid.uppercased())", secret: ServerHarness.backendSecret)
            #expect(try byUpper.status == .ok && byUpper.decoded(MemberBody.self).uuid == valid.lowercased(), "read in either case")
            let junkPath = try await client.send(.get, "/v1/members/\(valid)%00x", secret: ServerHarness.backendSecret)
            #expect(junkPath.status == .notFound)
            let scans = try await client.send(
                .post,
                "/v1/counter/scans",
                secret: ServerHarness.vendorSecret,
                json: [
                    "counter_id": UUID().uuidString + "\u{0}junk", "entries": [ScanReportTests.entry(1)],
                ]
            )
            #expect(scans.status == .unprocessableContent && scans.errorFields["counter_id"] != nil)
        }
    }

    @Test func scanTimesOutsideTheDocumentedRangeAreRefusedNamingTheEntryAndFarFutureOnesOneByOne() async throws {
        try await ServerHarness.withLiveServer { harness, client in
            let counter = UUID().uuidString
            var hostile = ScanReportTests.entry(1)
            hostile["at"] = Int64.max
            var past = ScanReportTests.entry(2)
            past["at"] = 0
            let refused = try await client.send(
                .post,
                "/v1/counter/scans",
                secret: ServerHarness.vendorSecret,
                json: ["counter_id": counter, "entries": [hostile, past]]
            )
            #expect(
                refused.status == .unprocessableContent && Set(refused.errorFields.keys) == ["entries[0].at", "entries[1].at"],
                "\(refused.errorFields)"
            )

            var ahead = ScanReportTests.entry(1)
            ahead["at"] = harness.now + 2 * 86_400
            var now = ScanReportTests.entry(2)
            now["at"] = harness.now
            let partly = try await client.send(
                .post,
                "/v1/counter/scans",
                secret: ServerHarness.vendorSecret,
                json: ["counter_id": counter, "entries": [ahead, now]]
            )
            let answer = try partly.decoded(ScanReportAnswer.self)
            #expect(partly.status == .ok && answer.stored == 1)
            let refusals = answer.refused
            #expect(refusals.count == 1 && refusals.first?.seq == 1 && refusals.first?.reason.contains("clock") == true)
            let shared = try await client.send(.get, "/v1/scans/shared", secret: ServerHarness.adminSecret)
            #expect(shared.status == .ok)
        }
    }
}
