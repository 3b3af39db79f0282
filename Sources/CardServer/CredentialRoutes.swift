import CardServices
import Foundation
import Hummingbird
import Membership
import PeezAPI

/// The operator's keys to the shops: vendors and every credential listed, created, renamed, revoked and rotated
/// (admin); one-time enrolment codes asked for by an admin or the shop's enrolled device, and exchanged by a new
/// device for its own credential (no secret, the code is the proof); the audit trail and the sales refused to
/// withdrawn credentials (admin).
struct CredentialRoutes {
    let credentials: CredentialService
    /// The credentials this instance knows, forgotten after a change here (other instances re-read within
    /// ``Authenticator/revocationDelay``).
    let cache: CredentialCache
    /// Where enrolment links point.
    let links: LinkBase
    /// Code exchanges per client: a code is 128 random bits, and guessing is slowed further.
    let enrolLimiter = RateLimiter(perClient: .init(perSecond: 0.2, burst: 5), overall: .init(perSecond: 5, burst: 20))

    func register(on router: Router<ServerRequestContext>) {
        router.on("/v1/vendors", method: .get, use: listVendors)
        router.on("/v1/vendors/{id}/credentials", method: .get, use: vendorCredentials)
        router.on("/v1/vendors/{id}/cut-off", method: .post, use: cutOff)
        router.on("/v1/vendors/{id}/enrolment-codes", method: .post, use: enrolmentCode)
        router.on("/v1/credentials", method: .get, use: list)
        router.on("/v1/credentials", method: .post, use: create)
        router.on("/v1/credentials/{id}", method: .patch, use: rename)
        router.on("/v1/credentials/{id}/revoke", method: .post, use: revoke)
        router.on("/v1/credentials/{id}/rotate", method: .post, use: rotate)
        router.on("/v1/enrolments", method: .post, use: enrol)
        router.on("/v1/audit", method: .get, use: audit)
        router.on("/v1/refused-sales", method: .get, use: refusedSales)
    }

    private func actor(_ credential: APICredential, _ context: ServerRequestContext) -> AuditActor {
        AuditActor(credential: credential, address: context.clientAddress)
    }

    private func answer(_ credential: APICredential) -> CredentialBody { CredentialBody(credential, now: credentials.now()) }

    @Sendable func listVendors(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try context.require(.admin)
        return try JSONExchange.response(VendorListBody(vendors: try await credentials.store.vendors().map(VendorBody.init)))
    }

    @Sendable func vendorCredentials(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try context.require(.admin)
        let id = try Self.id(context, "vendor")
        guard try await credentials.store.vendor(id: id) != nil else { throw MembershipError(.notFound, "No vendor has id \(id.lowercasedText).") }
        return try JSONExchange.response(CredentialListBody(credentials: try await credentials.list(role: .vendor, vendorID: id).map(answer)))
    }

    @Sendable func cutOff(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let admin = try context.require(.admin)
        let id = try Self.id(context, "vendor")
        _ = try await credentials.cutOff(vendorID: id, by: actor(admin, context))
        cache.forgetAll()
        return try JSONExchange.response(CredentialListBody(credentials: try await credentials.list(role: .vendor, vendorID: id).map(answer)))
    }

    @Sendable func enrolmentCode(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let caller = try context.require(.admin, .vendor)
        let id = try Self.id(context, "vendor")
        // A shop's enrolled device may enrol another device of its own shop, and learns nothing of other ids.
        guard caller.role == .admin || caller.vendorID == id else { throw MembershipError(.notFound, "No vendor has id \(id.lowercasedText).") }
        let body = try await JSONExchange.decode(EnrolmentCodeRequest.self, request, context: context)
        let (code, expiresAt) = try await credentials.enrolmentCode(
            vendorID: id,
            lifetime: body.lifetime_seconds.map { Int64($0.value) } ?? EnrolmentCode.defaultLifetime,
            label: body.label,
            by: actor(caller, context)
        )
        let link = EnrolmentLink.link(base: links.url(for: request, context: context), code: code)
        return try JSONExchange.response(
            EnrolmentCodeBody(code: code, vendorID: id, expiresAt: expiresAt, link: link, qrSVG: try EnrolmentLink.svg(link)),
            status: .created,
            headers: [.cacheControl: "no-store"]
        )
    }

    @Sendable func list(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try context.require(.admin)
        let query = request.uri.queryParameters
        var role: Role?
        if let text = query.get("role") {
            guard let parsed = Role(rawValue: text) else {
                throw APIError(
                    .unprocessableContent,
                    code: "invalid_fields",
                    "The role is not known.",
                    fields: ["role": "must be admin, backend or vendor"]
                )
            }
            role = parsed
        }
        var vendorID: UUID?
        if let text = query.get("vendor_id") {
            guard let parsed = UUID(strictText: text) else {
                throw APIError(.unprocessableContent, code: "invalid_fields", "The vendor id is not a UUID.", fields: ["vendor_id": "must be a UUID"])
            }
            vendorID = parsed
        }
        return try JSONExchange.response(CredentialListBody(credentials: try await credentials.list(role: role, vendorID: vendorID).map(answer)))
    }

    @Sendable func create(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let admin = try context.require(.admin)
        let body = try await JSONExchange.decode(CreateCredentialRequest.self, request, context: context)
        let issued = try await credentials.create(
            role: body.role,
            vendorID: body.vendor_id,
            label: body.label,
            by: actor(admin, context)
        )
        return try JSONExchange.response(
            IssuedCredentialBody(credential: answer(issued.credential), secret: issued.secret),
            status: .created,
            headers: [.cacheControl: "no-store"]
        )
    }

    @Sendable func rename(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let admin = try context.require(.admin)
        let id = try Self.id(context, "credential")
        let body = try await JSONExchange.decode(RenameCredentialRequest.self, request, context: context)
        return try JSONExchange.response(answer(try await credentials.rename(id: id, label: body.label, by: actor(admin, context))))
    }

    @Sendable func revoke(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let admin = try context.require(.admin)
        let id = try Self.id(context, "credential")
        let revoked = try await credentials.revoke(id: id, by: actor(admin, context))
        cache.forgetAll()
        return try JSONExchange.response(answer(revoked))
    }

    @Sendable func rotate(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let admin = try context.require(.admin)
        let id = try Self.id(context, "credential")
        let body = try await JSONExchange.decode(RotateCredentialRequest.self, request, context: context)
        let (issued, previous) = try await credentials.rotate(id: id, grace: Int64(body.grace_seconds?.value ?? 0), by: actor(admin, context))
        cache.forgetAll()
        return try JSONExchange.response(
            IssuedCredentialBody(credential: answer(issued.credential), secret: issued.secret, previous: answer(previous)),
            status: .created,
            headers: [.cacheControl: "no-store"]
        )
    }

    @Sendable func enrol(_ request: Request, context: ServerRequestContext) async throws -> Response {
        guard enrolLimiter.allow(context.clientAddress) else {
            throw APIError(.tooManyRequests, code: "rate_limited", "Too many enrolment attempts from this address; wait a minute.")
        }
        let body = try await JSONExchange.decode(EnrolRequest.self, request, context: context)
        do {
            let issued = try await credentials.enrol(code: body.code, label: body.label ?? "device enrolled by code", address: context.clientAddress)
            return try JSONExchange.response(
                IssuedCredentialBody(credential: answer(issued.credential), secret: issued.secret),
                status: .created,
                headers: [.cacheControl: "no-store"]
            )
        } catch let refusal as EnrolmentRefusal {
            throw Self.error(refusal)
        }
    }

    @Sendable func audit(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try context.require(.admin)
        let limit = try ActivationRoutes.limit(request.uri.queryParameters.get("limit"))
        let after = try Self.after(request.uri.queryParameters.get("after"))
        return try JSONExchange.response(
            AuditListBody(entries: try await credentials.store.audit(after: after, limit: limit).map(AuditEntryBody.init))
        )
    }

    @Sendable func refusedSales(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try context.require(.admin)
        let limit = try ActivationRoutes.limit(request.uri.queryParameters.get("limit"))
        let before = try request.uri.queryParameters.get("before").map { try Self.cursor($0, named: "before") }
        return try JSONExchange.response(
            RefusedSaleListBody(
                refused_sales: try await credentials.store.refusedSales(before: before, limit: limit).map(RefusedSaleBody.init)
            )
        )
    }

    // MARK: Helpers

    /// The path's `{id}`, a UUID; a 404 naming what was looked for otherwise.
    static func id(_ context: ServerRequestContext, _ what: String) throws -> UUID {
        guard let id = UUID(strictText: context.parameters.get("id") ?? "") else { throw MembershipError(.notFound, "No \(what) has this id.") }
        return id
    }

    /// The `after` query parameter: 0 when absent, else a whole number.
    static func after(_ text: String?) throws -> Int64 {
        try text.map { try cursor($0, named: "after") } ?? 0
    }

    /// A paging cursor's query parameter `name`: a whole number (a list entry's `seq`).
    static func cursor(_ text: String, named name: String) throws -> Int64 {
        guard text.utf8.count <= 19, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let value = Int64(text) else {
            throw APIError(.unprocessableContent, code: "invalid_fields", "\(name) is not a whole number.", fields: [name: "must be a whole number"])
        }
        return value
    }

    /// Where the request came to: http on loopback, https anywhere else (the service sits behind TLS there).
    static func origin(of request: Request) -> String {
        // Only a host name or address and a port make it into a link.
        let given = request.head.authority ?? ""
        let host =
            !given.isEmpty && given.utf8.count <= 255 && given.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-:[]".contains($0)) })
            ? given : "127.0.0.1"
        let bare = host.split(separator: ":").first.map(String.init) ?? host
        let loopback = bare == "localhost" || bare.hasPrefix("127.") || host.hasPrefix("[::1]")
        return (loopback ? "http://" : "https://") + host
    }

    /// A code that cannot be exchanged, said plainly: 404 for a code never given, 410 for one used, expired or
    /// withdrawn.
    static func error(_ refusal: EnrolmentRefusal) -> APIError {
        switch refusal {
        case .unknown:
            return APIError(
                .notFound,
                code: "enrolment_code_unknown",
                "This enrolment code is not known: ask PEEZ (or the shop's enrolled phone) for a new one."
            )
        case .used:
            return APIError(
                .gone,
                code: "enrolment_code_used",
                "This enrolment code was used already: each code enrols one device. Ask for a new one."
            )
        case .expired:
            return APIError(.gone, code: "enrolment_code_expired", "This enrolment code expired: codes live a few minutes. Ask for a new one.")
        case .revoked:
            return APIError(.gone, code: "enrolment_code_revoked", "This enrolment code was withdrawn: the shop's access was cut off. Call PEEZ.")
        }
    }
}
