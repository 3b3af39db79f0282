import CardServices
import CardToken
import CardWire
import Foundation
import Hummingbird
import Membership
import PeezAPI
import PeezBasics
import Prometheus

/// Verification, the key set, revocations, vendors, health and metrics.
struct ServiceRoutes {
    let cards: CardService
    let metrics: PrometheusCollectorRegistry
    /// Members, their periods and vendors, read to answer a verification and a vendor; the audit trail.
    let store: any MemberStore & LedgerStore & VendorStore & CredentialStore & RevocationStore & AuditStore & CounterDeviceStore
    /// The parts that can fail on their own, for /health.
    let parts: ServiceParts
    /// Whether the database answers (GET /health).
    let ping: @Sendable () async throws -> Void

    func register(on router: Router<ServerRequestContext>) {
        router.on("/v1/verify", method: .post, use: verify)
        router.on("/v1/keys", method: .get, use: keys)
        router.on("/v1/revocations", method: .get, use: revocations)
        router.on("/v1/counter/bundle", method: .get, use: counterBundle)
        router.on("/v1/vendors", method: .post, use: createVendor)
        router.on("/v1/vendors/{id}", method: .get, use: showVendor)
    }

    @Sendable func verify(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try context.require(.vendor, .backend, .admin)
        let body = try await JSONExchange.decode(VerifyRequest.self, request, context: context)
        let answer = try await VerificationService(cards: cards, store: store).verify(body.token)
        return try JSONExchange.response(answer)
    }

    @Sendable func keys(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try context.require(.vendor, .backend, .admin)
        return try JSONExchange.response(try cards.keyRing.document(), headers: [.cacheControl: "public, max-age=300"])
    }

    @Sendable func revocations(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try context.require(.vendor, .backend, .admin)
        let snapshot = try await store.revocations()
        let etag = "\"rev-\(snapshot.version)\""
        if request.headers[.ifNoneMatch] == etag {
            return Response(status: .notModified, headers: [.eTag: etag])
        }
        return try JSONExchange.response(RevocationListDocument(snapshot), headers: [.eTag: etag, .cacheControl: "no-cache"])
    }

    /// What a vendor's counter syncs: `application/cose`, a COSE_Sign1 over the counter bundle.
    @Sendable func counterBundle(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let credential = try context.require(.vendor, .admin)
        let query = request.uri.queryParameters
        if credential.role == .vendor { noteSync(credential) }
        let since = try Self.wholeNumber(query.get("since"), field: "since", meaning: "the revocation version the counter holds")
        let renewalsAfter = try Self.wholeNumber(
            query.get("renewals_after"),
            field: "renewals_after",
            meaning: "the service time (issued_at) of the bundle the counter holds"
        )
        let bytes = try await cards.signedCounterBundle(since: since, renewalsAfter: renewalsAfter)
        return Response(
            status: .ok,
            headers: [.contentType: "application/cose", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }

    /// Records that a vendor device synced, to the minute, in the background (the console's counters panel):
    /// the bundle never waits for it, and a failure only leaves the time a minute older.
    private func noteSync(_ credential: APICredential) {
        let minute = cards.now() / 60 * 60
        let store = store
        Task { try? await store.noteCounterSync(credentialID: credential.id, at: minute) }
    }

    /// A query parameter that must be a whole number (nil when absent), or 422 naming it.
    static func wholeNumber(_ text: String?, field: String, meaning: String) throws -> Int64? {
        guard let text else { return nil }
        guard text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let value = Int64(text) else {
            throw APIError(
                .unprocessableContent,
                code: "invalid_fields",
                "The query has invalid parameters.",
                fields: [field: "must be \(meaning), a whole number"]
            )
        }
        return value
    }

    @Sendable func createVendor(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let admin = try context.require(.admin)
        let body = try await JSONExchange.decode(CreateVendorRequest.self, request, context: context)
        let (vendor, issued) = try await CredentialService(store: store, now: cards.clock).createVendor(
            name: body.name,
            category: body.category,
            neighbourhood: body.neighbourhood,
            by: AuditActor(credential: admin, address: context.clientAddress)
        )
        let secret = issued.secret
        return try JSONExchange.response(CreatedVendorBody(vendor: VendorBody(vendor), api_secret: secret), status: .created)
    }

    @Sendable func showVendor(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let credential = try context.require(.vendor, .admin)
        let id = UUID(strictText: context.parameters.get("id") ?? "")
        // A vendor may only see itself, and learns nothing of other ids: another vendor's id and an id no
        // vendor has get the same answer, decided before the store is read.
        guard let id, credential.role == .admin || credential.vendorID == id, let vendor = try await store.vendor(id: id) else {
            throw MembershipError(.notFound, "No such vendor (a vendor secret sees only its own vendor).")
        }
        return try JSONExchange.response(VendorBody(vendor))
    }

    /// `GET /health`: up, and the database answers (else an error status); `degraded` with the part and why when
    /// a part that can fail on its own (Wallet, pushes, reminders, TLS) cannot be used. No credentials.
    @Sendable func health(_ request: Request, context: ServerRequestContext) async throws -> Response {
        try await ping()
        let states = parts.parts
        return try JSONExchange.response(
            HealthBody(
                status: states.values.allSatisfy { $0.status == .ok } ? "ok" : "degraded",
                parts: Dictionary(
                    uniqueKeysWithValues: states.map { ($0.key.rawValue, HealthBody.Part(status: $0.value.status.rawValue, reason: $0.value.reason)) }
                )
            )
        )
    }

    /// `GET /metrics`: Prometheus text format, for admins (scrapers send an admin bearer secret).
    @Sendable func prometheus(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try context.require(.admin)
        var buffer: [UInt8] = []
        metrics.emit(into: &buffer)
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: buffer))
        )
    }
}
