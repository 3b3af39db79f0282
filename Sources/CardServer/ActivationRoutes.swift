import CardServices
import CardToken
import Foundation
import HTTPTypes
import Hummingbird
import Membership
import PeezAPI
import PeezBasics

/// `/v1/activations`: vendors selling months at the counter; admins correcting mistakes.
///
/// Creating one needs an `Idempotency-Key` header (see ``ActivationService``): a retry with the same key and
/// body replays the first response; the same key with another body is 422; a retry while the first is still
/// being processed is 409.
struct ActivationRoutes {
    let sales: ActivationService
    let changes: MemberChangeService
    var cards: CardService { sales.cards }
    /// The activations listed, and the sales refused to withdrawn credentials.
    let store: any LedgerStore & AuditStore

    static let idempotencyKeyHeader = HTTPField.Name("Idempotency-Key")!
    static let replayedHeader = HTTPField.Name("Idempotent-Replayed")!

    func register(on router: Router<ServerRequestContext>) {
        router.on("/v1/activations", method: .post, use: create)
        router.on("/v1/activations", method: .get, use: list)
        router.on("/v1/activations/{id}/cancel", method: .post, use: cancel)
    }

    @Sendable func create(_ request: Request, context: ServerRequestContext) async throws -> Response {
        if let refused = context.refusedCredential, refused.credential.role == .vendor {
            // The sale is refused whatever its body; a body that cannot be read is kept with what the request says.
            let body = try? await JSONExchange.decode(ActivationRequest.self, request, context: context)
            let key = request.headers[Self.idempotencyKeyHeader]
            // A retry of a sale its key made while the credential was still accepted (the network may have
            // delivered the first copy before the revocation): that sale stands, and the counter is told so with
            // the first answer (a copy still being sold is waited for: 409). Anything else the credential sends
            // is refused, its key closed so that no copy of it is sold afterwards, and kept for the operator.
            if let body, let key, Self.isIdempotencyKey(key), let stood = try await saleThatStands(body, key: key, credential: refused.credential) {
                return JSONExchange.response(bytes: stood.bytes, status: .created, headers: [Self.replayedHeader: "true"])
            }
            try await RefusedSaleService(store: store, cards: cards).keep(
                body,
                idempotencyKey: key ?? "",
                credential: refused.credential,
                refusal: refused.refusal
            )
        }
        let credential = try context.require(.vendor)
        let vendorID = try Self.vendorID(of: credential)
        let keyText = try Self.idempotencyKey(request, purpose: "a retry cannot sell the months twice")
        let body = try await JSONExchange.decode(ActivationRequest.self, request, context: context)
        let sale = ActivationService.SaleRequest(body: body, vendorID: vendorID, keyScope: credential.id.uuidString, idempotencyKey: keyText)
        switch try await sales.sell(sale) {
        case .sold(let answer):
            return JSONExchange.response(bytes: answer.bytes, status: .created)
        case .replayed(let answer):
            // Only sales are stored, and a sale is answered 201 Created.
            return JSONExchange.response(bytes: answer.bytes, status: .created, headers: [Self.replayedHeader: "true"])
        case .refused:
            throw APIError(
                .unauthorized,
                code: "credential_revoked",
                "This credential (\(credential.label)) was withdrawn while this sale was on its way, and a copy of it was refused: nothing was sold. Ask PEEZ to enrol this device again."
            )
        }
    }

    /// Whether `text` can be an `Idempotency-Key`: 1 to 255 visible ASCII characters.
    static func isIdempotencyKey(_ text: String) -> Bool {
        (1...IdempotencyKey.maxLength).contains(text.utf8.count) && text.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// The request's `Idempotency-Key`, else 400 saying why it is needed.
    static func idempotencyKey(_ request: Request, purpose: String) throws -> String {
        guard let keyText = request.headers[idempotencyKeyHeader], isIdempotencyKey(keyText) else {
            throw APIError.badRequest(
                "Send an Idempotency-Key header (1 to \(IdempotencyKey.maxLength) visible ASCII characters, e.g. a UUID) so \(purpose)."
            )
        }
        return keyText
    }

    /// The first answer to a sale a credential no longer accepted made under `key`, if it did; else nil, and
    /// the key is closed.
    private func saleThatStands(_ body: ActivationRequest, key: String, credential: APICredential) async throws -> StoredResponse? {
        guard let vendorID = credential.vendorID else { return nil }
        return try await sales.refused(
            ActivationService.SaleRequest(body: body, vendorID: vendorID, keyScope: credential.id.uuidString, idempotencyKey: key)
        )
    }

    /// The vendor a vendor credential acts for; one tied to none is refused, never given a vendor of its own.
    static func vendorID(of credential: APICredential) throws -> UUID {
        guard let vendorID = credential.vendorID else { throw APIError.forbidden("This vendor credential is not tied to a vendor.") }
        return vendorID
    }

    @Sendable func list(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let credential = try context.require(.vendor, .admin)
        let limit = try Self.limit(request.uri.queryParameters.get("limit"))
        var vendorID: UUID?
        if credential.role == .vendor {
            vendorID = try Self.vendorID(of: credential)
        }
        let now = cards.now()
        let periods = try await store.activations(vendorID: vendorID, limit: limit)
        return try JSONExchange.response(ActivationListBody(activations: periods.map { PeriodBody($0, now: now) }))
    }

    /// The `limit` query parameter: 100 when absent, else a whole number from 1 to 1,000.
    static func limit(_ text: String?) throws -> Int {
        guard let text else { return 100 }
        guard text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let limit = Int(text), (1...1_000).contains(limit)
        else {
            throw APIError(
                .unprocessableContent,
                code: "invalid_fields",
                "The query has invalid parameters.",
                fields: ["limit": "must be a whole number from 1 to 1000"]
            )
        }
        return limit
    }

    @Sendable func cancel(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let admin = try context.require(.admin)
        guard let id = UUID(strictText: context.parameters.get("id") ?? "") else {
            throw MembershipError(.notFound, "Activation ids are UUIDs.")
        }
        let result = try await changes.cancelPeriod(id: id, by: AuditActor(credential: admin, address: context.clientAddress))
        let now = cards.now()
        CardMetrics.cancelled()
        return try JSONExchange.response(
            CancellationBody(
                period: PeriodBody(result.period, now: now),
                coverage: CoverageBody(coverageEnd: result.coverageEnd, now: now),
                cards_revoked_before: AlgiersCalendar.iso8601(result.revokedBefore)
            )
        )
    }
}
