import CardServices
import Console
import ConsoleAssets
import ConsoleCharts
import Foundation
import HTTPTypes
import Hummingbird
import Membership
import PeezAPI

/// The console's session and its API (Docs/console.md). Every `/console/api/` route needs a session cookie,
/// made from a one-time link; a request that changes something must come from this origin and say it sends
/// JSON (a form or an image on another site can do neither). Actions are audited under the session's user.
struct ConsoleRoutes {
    let panels: ConsoleService
    let signIn: ConsoleSignIn
    let cache: CredentialCache
    /// Whether cookies are marked `Secure` (TLS here, or an https public address in front).
    let secureCookies: Bool
    /// Where sign-in links point.
    let links: LinkBase
    /// The go-live check, as `peez check` makes it (nil: the panel says the check is not available).
    let goLive: (@Sendable () async -> GoLiveReport)?
    let signInLimiter = RateLimiter(perClient: .init(perSecond: 0.2, burst: 10), overall: .init(perSecond: 5, burst: 20))

    static let cookieName = "peez_console"

    /// The console's texts, built in (a test reads the file and holds its languages to the same keys).
    static let texts = try! ConsoleTexts(json: ConsoleAssets.consoleTexts)

    func register(on router: Router<ServerRequestContext>) {
        router.on("/v1/console/links", method: .post, use: createLink)
        router.on("/console/api/session", method: .post, use: createSession)
        router.on("/console/api/session", method: .delete, use: endSession)
        router.on("/console/api/session", method: .get, use: session)
        router.on("/console/api/sales", method: .get, use: rangePanel(panels.sales))
        router.on("/console/api/renewals", method: .get, use: rangePanel(panels.renewals))
        router.on("/console/api/subscriptions", method: .get, use: rangePanel(panels.subscriptions))
        router.on("/console/api/anomalies", method: .get, use: anomalies)
        router.on("/console/api/reminders", method: .get, use: rangePanel(panels.reminders))
        router.on("/console/api/wallet", method: .get, use: rangePanel(panels.wallet))
        router.on("/console/api/payments", method: .get, use: rangePanel(panels.payments))
        router.on("/console/api/accounts", method: .get, use: accounts)
        router.on("/console/api/accounts/limit", method: .put, use: setBalanceLimit)
        router.on("/console/api/counters", method: .get, use: counters)
        router.on("/console/api/members", method: .get, use: members)
        router.on("/console/api/members/{uuid}", method: .get, use: member)
        router.on("/console/api/members/{uuid}/revoke-cards", method: .post, use: revokeCards)
        router.on("/console/api/credentials/{id}/revoke", method: .post, use: revokeCredential)
        router.on("/console/api/audit", method: .get, use: audit)
        router.on("/console/api/checks", method: .get, use: checks)
    }

    /// `GET /console/api/checks`: the go-live check, made now.
    @Sendable func checks(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try await requireSession(request)
        guard let goLive else {
            throw APIError(.notFound, code: "not_found", "The go-live check runs in peez serve; this server was built without it.")
        }
        return try answer(await goLive())
    }

    /// A request body of the sign-in: the code from the link.
    struct SignInRequest: APIRequest {
        var code: String
    }

    /// `POST /v1/console/links`: a one-time sign-in link for the admin credential that asks.
    @Sendable func createLink(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let admin = try context.require(.admin)
        let actor = AuditActor(credential: admin, address: context.clientAddress)
        let (url, expiresAt) = try await signIn.link(
            for: AuditActor(label: "console (\(admin.label))", credentialID: admin.id, address: context.clientAddress),
            baseURL: links.url(for: request, context: context),
            by: actor
        )
        return try JSONExchange.response(ConsoleLinkBody(link: url, expires_at: expiresAt), status: .created, headers: [.cacheControl: "no-store"])
    }

    @Sendable func createSession(_ request: Request, context: ServerRequestContext) async throws -> Response {
        try Self.checkSameOrigin(request)
        guard signInLimiter.allow(context.clientAddress) else {
            throw APIError(.tooManyRequests, code: "rate_limited", "Too many sign-in attempts from this address; wait a minute.")
        }
        let body = try await JSONExchange.decode(SignInRequest.self, request, context: context)
        guard let (id, grant) = try await signIn.signIn(code: body.code, address: context.clientAddress) else {
            throw APIError(
                .unauthorized,
                code: "link_invalid",
                "This sign-in link is unknown, used or expired: make a new one with peez admin console-link."
            )
        }
        let cookie =
            "\(Self.cookieName)=\(id); Path=/console; Max-Age=\(ConsoleSignIn.sessionLifetime); HttpOnly; SameSite=Strict"
            + (secureCookies ? "; Secure" : "")
        return try JSONExchange.response(
            ConsoleSessionBody(actor: grant.actor, expires_at: grant.expiresAt),
            headers: [.setCookie: cookie, .cacheControl: "no-store"]
        )
    }

    @Sendable func endSession(_ request: Request, context: ServerRequestContext) async throws -> Response {
        try Self.checkSameOrigin(request)
        if let id = Self.sessionID(request) { try await signIn.signOut(id: id, address: context.clientAddress) }
        let cleared = "\(Self.cookieName)=; Path=/console; Max-Age=0; HttpOnly; SameSite=Strict" + (secureCookies ? "; Secure" : "")
        return Response(status: .noContent, headers: [.setCookie: cleared, .cacheControl: "no-store"])
    }

    @Sendable func session(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let grant = try await requireSession(request)
        return try answer(ConsoleSessionBody(actor: grant.actor, expires_at: grant.expiresAt))
    }

    /// A panel over a range of days (`from`, `to`) with its chart in `lang`.
    func rangePanel<Body: Encodable>(
        _ panel: @escaping @Sendable (ConsoleDays, ChartLanguage) async throws -> Body
    ) -> @Sendable (Request, ServerRequestContext) async throws -> Response {
        { request, _ in
            _ = try await requireSession(request)
            return try answer(try await panel(try days(request), Self.language(request)))
        }
    }

    @Sendable func anomalies(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try await requireSession(request)
        return try answer(try await panels.anomalies(try days(request)))
    }

    @Sendable func accounts(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try await requireSession(request)
        return try answer(try await panels.accounts(try days(request), Self.language(request)))
    }

    /// `PUT /console/api/accounts/limit`: the team's balance limit, audited under the console user's name.
    @Sendable func setBalanceLimit(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let grant = try await requireSession(request, changing: true)
        let body = try await JSONExchange.decode(BalanceLimitRequest.self, request, context: context)
        return try answer(try await panels.setBalanceLimit(body, by: AuditActor(console: grant, address: context.clientAddress)))
    }

    @Sendable func counters(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try await requireSession(request)
        return try answer(try await panels.counters(try days(request)))
    }

    @Sendable func members(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try await requireSession(request)
        return try answer(try await panels.searchMembers(Self.formValue(request.uri.query, "q") ?? ""))
    }

    @Sendable func member(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try await requireSession(request)
        return try answer(try await panels.member(uuid: try Self.uuid(context, "uuid", "member"), Self.language(request)))
    }

    @Sendable func revokeCards(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let grant = try await requireSession(request, changing: true)
        let member = try Self.uuid(context, "uuid", "member")
        return try answer(try await panels.revokeCards(memberUUID: member, by: AuditActor(console: grant, address: context.clientAddress)))
    }

    @Sendable func revokeCredential(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let grant = try await requireSession(request, changing: true)
        let id = try Self.uuid(context, "id", "credential")
        let revoked = try await panels.revokeCredential(id: id, by: AuditActor(console: grant, address: context.clientAddress))
        cache.forgetAll()
        return try answer(CredentialBody(revoked, now: panels.now()))
    }

    @Sendable func audit(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try await requireSession(request)
        let limit = try ActivationRoutes.limit(request.uri.queryParameters.get("limit"))
        return try answer(try await panels.audit(try days(request), limit: limit))
    }

    /// The session the request's cookie names; 401 without one. A request that changes something must also
    /// come from this origin and carry JSON.
    private func requireSession(_ request: Request, changing: Bool = false) async throws -> ConsoleGrant {
        guard let id = Self.sessionID(request), let grant = try await signIn.session(id: id) else {
            throw APIError.unauthenticated("Sign in to the console with a one-time link from peez admin console-link.")
        }
        if changing {
            try Self.checkSameOrigin(request)
            guard Self.isJSON(request.headers[.contentType]) else {
                throw APIError(.unsupportedMediaType, code: "unsupported_media_type", "Send the request as application/json.")
            }
        }
        return grant
    }

    private func answer(_ body: some Encodable) throws -> Response {
        try JSONExchange.response(body, headers: [.cacheControl: "no-store"])
    }

    private func days(_ request: Request) throws -> ConsoleDays {
        let query = request.uri.queryParameters
        return try ConsoleDays(from: query.get("from"), to: query.get("to"), today: panels.today)
    }

    /// The charts' language: `lang` if it is one of the console's, else English.
    static func language(_ request: Request) -> ChartLanguage {
        request.uri.queryParameters.get("lang").flatMap(ChartLanguage.init(rawValue:)) ?? .en
    }

    static func uuid(_ context: ServerRequestContext, _ parameter: String, _ what: String) throws -> UUID {
        guard let id = UUID(strictText: try context.parameters.require(parameter)) else {
            throw APIError(.notFound, code: "not_found", "No \(what) has that id.")
        }
        return id
    }

    /// A query parameter read as a form encodes it (WHATWG URLSearchParams, as the page sends it): `+` is a
    /// space, `%2B` a plus sign. Nil when absent or not valid percent-encoding.
    static func formValue(_ query: String?, _ name: String) -> String? {
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts[0] == name else { continue }
            return parts.count == 2 ? String(parts[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding : ""
        }
        return nil
    }

    /// The console cookie's value, if the request carries one.
    static func sessionID(_ request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == cookieName {
                    return String(parts[1]).trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }

    /// Refuses a request another site's page sent: its `Origin` (sent by browsers with every such POST and
    /// DELETE) must name the host the request came to, and `Sec-Fetch-Site`, when sent, must say same-origin.
    static func checkSameOrigin(_ request: Request) throws {
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!], site != "same-origin", site != "none" {
            throw APIError.forbidden("The console only takes changes from its own pages.")
        }
        guard let origin = request.headers[HTTPField.Name("Origin")!] else { return }
        let host = request.head.authority ?? ""
        guard let url = URL(string: origin), let originHost = url.host, !host.isEmpty,
            originHost + (url.port.map { ":\($0)" } ?? "") == host
        else {
            throw APIError.forbidden("The console only takes changes from its own pages.")
        }
    }

    static func isJSON(_ contentType: String?) -> Bool {
        contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
    }
}
