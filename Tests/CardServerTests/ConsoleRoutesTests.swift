import CardServer
import Console
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Membership
import PeezAPI
import TestSupport
import Testing

/// The console's sign-in and API on a real socket: a one-time link opens one session, in a cookie scripts
/// cannot read and other sites cannot send; changes come only from the console's own origin, as JSON, and are
/// audited under the console user; a session made from an admin credential ends with it.
@Suite("Console routes")
struct ConsoleRoutesTests {
    /// A link from the admin API, its code, and the session cookie it is exchanged for.
    static func signIn(_ client: any TestClientProtocol) async throws -> (code: String, cookie: String, reply: Reply) {
        let made = try await client.send(.post, "/v1/console/links", secret: ServerHarness.adminSecret)
        #expect(made.status == .created)
        let link = try made.decoded(ConsoleLinkBody.self).link
        let code = try #require(link.components(separatedBy: "#signin=").last)
        let reply = try await client.send(.post, "/console/api/session", json: ["code": code])
        let setCookie = try #require(reply.headers[.setCookie], "\(reply.status) \(reply.text)")
        let cookie = try #require(setCookie.split(separator: ";").first.map(String.init))
        return (code, cookie, reply)
    }

    @Test func aOneTimeLinkOpensOneSessionInAnHttpOnlySameSiteStrictCookie() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let (code, cookie, reply) = try await Self.signIn(client)
            #expect(reply.status == .ok)
            let attributes = Set(try #require(reply.headers[.setCookie]).split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) })
            #expect(attributes.isSuperset(of: ["HttpOnly", "SameSite=Strict", "Path=/console", "Max-Age=28800"]))
            #expect(!attributes.contains("Secure"), "plain HTTP on loopback: a Secure cookie would never come back")
            #expect(try reply.decoded(ConsoleSessionBody.self).actor == "console (t)")
            let again = try await client.send(.post, "/console/api/session", json: ["code": code])
            #expect(again.status == .unauthorized && again.errorCode == "link_invalid")
            let me = try await client.send(.get, "/console/api/session", headers: [.cookie: cookie])
            #expect(me.status == .ok && me.headers[.cacheControl] == "no-store")
            #expect(try await client.send(.get, "/console/api/sales").status == .unauthorized)
            #expect(try await client.send(.get, "/console/api/sales", headers: [.cookie: "peez_console=guessed"]).status == .unauthorized)
            // An API secret is no session.
            #expect(try await client.send(.get, "/console/api/sales", secret: ServerHarness.adminSecret).status == .unauthorized)
        }
    }

    @Test func behindAnHttpsAddressTheCookieIsSecure() async throws {
        try await ServerHarness.withLiveServer(publicURL: "https://cards.peez.dz") { _, client in
            let (_, _, reply) = try await Self.signIn(client)
            #expect(try #require(reply.headers[.setCookie]).contains("; Secure"))
        }
    }

    @Test func anotherSitesPageCanNeitherSignInNorChangeAnything() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let (_, cookie, _) = try await Self.signIn(client)
            let member = try await client.createMember()
            let path = "/console/api/members/\(member)/revoke-cards"
            let evil: HTTPFields = [.cookie: cookie, HTTPField.Name("Origin")!: "https://evil.example"]
            #expect(try await client.send(.post, path, json: [:], headers: evil).status == .forbidden)
            let crossSite: HTTPFields = [.cookie: cookie, HTTPField.Name("Sec-Fetch-Site")!: "cross-site"]
            #expect(try await client.send(.post, path, json: [:], headers: crossSite).status == .forbidden)
            // A form's body (not JSON) is refused before anything changes.
            let form = try await client.send(
                .post,
                path,
                raw: Array("a=b".utf8),
                headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"]
            )
            #expect(form.status == .unsupportedMediaType)
            #expect(
                try await client.send(
                    .post,
                    "/console/api/session",
                    json: ["code": "x"],
                    headers: [HTTPField.Name("Origin")!: "https://evil.example"]
                )
                .status == .forbidden
            )
            let trail = try await client.send(.get, "/v1/audit", secret: ServerHarness.adminSecret).decoded(AuditListBody.self)
            #expect(!trail.entries.contains { $0.action == "member.cards_revoked" })
        }
    }

    @Test func revokingAMembersCardsFromTheConsoleIsAuditedUnderItsUserAndListedForCounters() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let (_, cookie, _) = try await Self.signIn(client)
            let member = try await client.createMember()
            #expect(try await client.activate(token: try await client.cardToken(member)).status == .created)
            let token = try await client.cardToken(member)
            // Sent by no browser page (no Origin): a script of the operator's own (Chromium's, with its Origin, is
            // the browser test's).
            let headers: HTTPFields = [.cookie: cookie]
            let before = try await client.send(.get, "/v1/revocations", secret: ServerHarness.vendorSecret)
            let revoked = try await client.send(.post, "/console/api/members/\(member)/revoke-cards", json: [:], headers: headers)
            #expect(revoked.status == .ok, "\(revoked.text)")
            #expect(try revoked.decoded(RevokedCardsBody.self).member_uuid == member)
            let trail = try await client.send(.get, "/v1/audit", secret: ServerHarness.adminSecret).decoded(AuditListBody.self)
            let entry = try #require(trail.entries.last { $0.action == "member.cards_revoked" })
            #expect(entry.actor == "console (t)" && entry.target == member && entry.address == "127.0.0.1")
            let after = try await client.send(.get, "/v1/revocations", secret: ServerHarness.vendorSecret)
            #expect(after.text != before.text)
            let verdict = try await client.send(.post, "/v1/verify", secret: ServerHarness.vendorSecret, json: ["token": token])
            #expect(verdict.rawJSON["verdict"] as? String == "revoked", "\(verdict.text)")
            let unknown = try await client.send(.post, "/console/api/members/\(UUID())/revoke-cards", json: [:], headers: headers)
            #expect(unknown.status == .notFound)
        }
    }

    @Test func aSessionMadeFromAnAdminCredentialEndsWhenTheCredentialIsRevoked() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let made = try await client.send(.post, "/v1/credentials", secret: ServerHarness.adminSecret, json: ["role": "admin", "label": "amina"])
            let issued = try made.decoded(IssuedCredentialBody.self)
            let link = try await client.send(.post, "/v1/console/links", secret: issued.secret).decoded(ConsoleLinkBody.self).link
            let code = try #require(link.components(separatedBy: "#signin=").last)
            let reply = try await client.send(.post, "/console/api/session", json: ["code": code])
            let cookie = try #require(reply.headers[.setCookie]?.split(separator: ";").first.map(String.init))
            #expect(try await client.send(.get, "/console/api/counters", headers: [.cookie: cookie]).status == .ok)
            let revoke = try await client.send(.post, "/v1/credentials/\(issued.credential.id)/revoke", secret: ServerHarness.adminSecret)
            #expect(revoke.status == .ok)
            #expect(try await client.send(.get, "/console/api/counters", headers: [.cookie: cookie]).status == .unauthorized)
        }
    }

    @Test func signingOutEndsTheSessionAndClearsTheCookie() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let (_, cookie, _) = try await Self.signIn(client)
            let out = try await client.send(.delete, "/console/api/session", headers: [.cookie: cookie])
            #expect(out.status == .noContent && out.headers[.setCookie]?.contains("Max-Age=0") == true)
            #expect(try await client.send(.get, "/console/api/session", headers: [.cookie: cookie]).status == .unauthorized)
        }
    }

    @Test func panelsRefuseRangesTheyCannotDrawAndSearchesTheyCannotRun() async throws {
        try await ServerHarness.withLiveServer { _, client in
            let (_, cookie, _) = try await Self.signIn(client)
            for panel in ["sales", "anomalies", "audit"] {
                for query in ["from=2026-13-01", "from=2026-11-10&to=2026-11-01", "from=2024-01-01&to=2026-01-01", "to=yesterday"] {
                    let reply = try await client.send(.get, "/console/api/\(panel)?\(query)", headers: [.cookie: cookie])
                    #expect(reply.status == .unprocessableContent && reply.errorCode == "invalid_fields", "\(panel) \(query): \(reply.status)")
                }
            }
            #expect(try await client.send(.get, "/console/api/members?q=", headers: [.cookie: cookie]).status == .unprocessableContent)
            for hostile in ["a%00b", "%1B%5B2J", "x%E2%80%AEy"] {
                #expect(
                    try await client.send(.get, "/console/api/members?q=\(hostile)", headers: [.cookie: cookie]).status == .unprocessableContent,
                    "\(hostile)"
                )
            }
            // A name the page sends as a form does: "+" is a space.
            _ = try await client.createMember(7, name: "Karim Copieur")
            let found = try await client.send(.get, "/console/api/members?q=karim+cop", headers: [.cookie: cookie]).decoded(MemberListBody.self)
            #expect(found.members.map(\.name) == ["Karim Copieur"])
        }
    }
}
