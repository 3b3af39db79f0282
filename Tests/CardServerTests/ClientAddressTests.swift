import CardServer
import Foundation
import HTTPTypes
import HummingbirdTesting
import Membership
import MembershipSQLite
import PeezAPI
import TestSupport
import Testing

/// The client's address behind a trusted reverse proxy, on a real loopback socket (the test client is the
/// "proxy" at 127.0.0.1): the audit trail and the per-client limits see the client the proxy names, a peer that
/// is not trusted is its own client whatever headers it sends, and no link is made from a proxied Host header.
@Suite("Client address behind a proxy")
struct ClientAddressTests {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let forwarded = HTTPField.Name("Forwarded")!

    /// Runs `body` against the service trusting `proxies`, listening on loopback.
    static func withServer(
        trusting proxies: String,
        publicURL: String? = nil,
        _ body: @Sendable (ServerHarness, any TestClientProtocol) async throws -> Void
    ) async throws {
        let harness = try await ServerHarness.make()
        defer { harness.folder.remove() }
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.trustedProxies = try TrustedProxies(parsing: proxies)
        configuration.publicURL = publicURL
        let app = buildApplication(cards: harness.cards, ledger: harness.store, metrics: ServerHarness.metrics, configuration: configuration)
        try await app.test(.live) { client in try await body(harness, client) }
        try await harness.database.close()
    }

    /// Creates a vendor as the admin with `headers`, and returns the address its audit entry records.
    static func auditedAddress(_ client: some TestClientProtocol, _ headers: HTTPFields) async throws -> String? {
        let name = "Vendor \(UUID().uuidString.prefix(8))"
        let made = try await client.send(
            .post,
            "/v1/vendors",
            secret: ServerHarness.adminSecret,
            json: ["name": name, "category": "boucherie", "neighbourhood": "usto"],
            headers: headers
        )
        guard made.status == .created else { throw HarnessError(reply: made) }
        let audit = try await client.send(.get, "/v1/audit?limit=500", secret: ServerHarness.adminSecret)
        return try audit.decoded(AuditListBody.self).entries.last { $0.action == "vendor.create" && $0.detail.contains(name) }?.address
    }

    @Test func anActionThroughATrustedProxyIsAuditedWithTheClientItsHeaderNames() async throws {
        try await Self.withServer(trusting: "127.0.0.1,::1") { _, client in
            let chain = try await Self.auditedAddress(client, [Self.forwardedFor: "198.51.100.1, 203.0.113.7"])
            #expect(chain == "203.0.113.7", "the nearest address that is no trusted proxy")
            let forwarded = try await Self.auditedAddress(client, [Self.forwarded: #"for="[2001:DB8::7]:4711";proto=https"#])
            #expect(forwarded == "2001:db8::7", "RFC 7239's header, one spelling per address")
            let unknown = try await Self.auditedAddress(client, [Self.forwardedFor: "unknown"])
            #expect(unknown == "127.0.0.1", "nothing believable: the proxy")
            let none = try await Self.auditedAddress(client, [:])
            #expect(none == "127.0.0.1", "no header: the proxy itself")
        }
    }

    @Test func headersFromAPeerThatIsNoTrustedProxyAreIgnored() async throws {
        try await Self.withServer(trusting: "10.0.0.0/8,::1") { _, client in
            let forwardedFor = try await Self.auditedAddress(client, [Self.forwardedFor: "203.0.113.7"])
            #expect(forwardedFor == "127.0.0.1")
            let forwarded = try await Self.auditedAddress(client, [Self.forwarded: "for=203.0.113.7"])
            #expect(forwarded == "127.0.0.1")
        }
    }

    @Test func theEnrolmentCodeLimitCountsEachClientBehindAProxyApart() async throws {
        try await Self.withServer(trusting: "127.0.0.1") { _, client in
            let guess = ["code": "pz" + String(repeating: "A", count: 26)]
            var statuses: [HTTPResponse.Status] = []
            // Five guesses at once, then one every five seconds: a loaded machine may let a token come back between
            // two of these, so the proof is that the client was slowed at all.
            for _ in 0..<12 {
                statuses.append(try await client.send(.post, "/v1/enrolments", json: guess, headers: [Self.forwardedFor: "203.0.113.7"]).status)
            }
            #expect(statuses.contains(.tooManyRequests), "one client's guesses are slowed: \(statuses)")
            let other = try await client.send(.post, "/v1/enrolments", json: guess, headers: [Self.forwardedFor: "203.0.113.8"])
            #expect(other.status != .tooManyRequests, "another client behind the same proxy is not: \(other.status)")
        }
    }

    /// The link an enrolment code comes with, asked for on a raw connection naming `host`.
    static func enrolmentLink(port: Int, vendor: UUID, host: String, forwardedFor: String) async throws -> String {
        let connection = try RawConnection(port: port)
        connection.send(
            "POST /v1/vendors/\(vendor.uuidString.lowercased())/enrolment-codes HTTP/1.1\r\nHost: \(host)\r\n"
                + "Authorization: Bearer \(ServerHarness.adminSecret)\r\nX-Forwarded-For: \(forwardedFor)\r\n"
                + "Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"
        )
        let answer = try #require(await connection.readUntilClosed(within: .seconds(30)))
        let body = try #require(answer.range(of: "\r\n\r\n").map { answer[$0.upperBound...] }, "\(answer)")
        return try JSONDecoder().decode(EnrolmentCodeBody.self, from: Data(body.utf8)).link
    }

    @Test func aLinkThroughATrustedProxyIsNeverMadeFromItsHostHeader() async throws {
        try await Self.withServer(trusting: "127.0.0.1") { harness, client in
            let link = try await Self.enrolmentLink(
                port: try #require(client.port),
                vendor: harness.vendor.id,
                host: "evil.example",
                forwardedFor: "203.0.113.7"
            )
            #expect(link.hasPrefix("http://127.0.0.1:0/counter/#enrol="), "the listening address, not the Host header: \(link)")
        }
        try await Self.withServer(trusting: "127.0.0.1", publicURL: "https://cards.peez.dz") { harness, client in
            let link = try await Self.enrolmentLink(
                port: try #require(client.port),
                vendor: harness.vendor.id,
                host: "evil.example",
                forwardedFor: "203.0.113.7"
            )
            #expect(link.hasPrefix("https://cards.peez.dz/counter/#enrol="), "the public address: \(link)")
        }
    }
}
