import CardCrypto
import CardToken
import Foundation
import HTTPTypes
import Hummingbird
import Membership
import PeezServices

/// `/v1/activations`: vendors selling months at the counter; admins correcting mistakes.
///
/// Creating one needs an `Idempotency-Key` header (IETF httpapi idempotency-key draft, Stripe's semantics):
/// a retry with the same key and body replays the first response; the same key with another body is 422; a
/// retry while the first is still being processed is 409. Keys belong to the credential that sent them.
struct ActivationRoutes {
    let cards: CardService
    var store: any MembershipStore { cards.store }
    /// An in-flight key older than this is taken to belong to a process that died, and may be retried.
    static let abandonAfterSeconds: Int64 = 60

    static let idempotencyKeyHeader = HTTPField.Name("Idempotency-Key")!
    static let replayedHeader = HTTPField.Name("Idempotent-Replayed")!

    func register(on router: Router<ServerRequestContext>) {
        router.on("/v1/activations", method: .post, use: create)
        router.on("/v1/activations", method: .get, use: list)
        router.on("/v1/activations/{id}/cancel", method: .post, use: cancel)
    }

    @Sendable func create(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let credential = try context.require(.vendor)
        guard let vendorID = credential.vendorID else {
            throw APIError.forbidden("This vendor credential is not tied to a vendor.")
        }
        guard let keyText = request.headers[Self.idempotencyKeyHeader], (1...IdempotencyKey.maxLength).contains(keyText.utf8.count),
            keyText.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else {
            throw APIError.badRequest(
                "Send an Idempotency-Key header (1 to \(IdempotencyKey.maxLength) visible ASCII characters, e.g. a UUID) so a retry cannot sell the months twice."
            )
        }
        let bytes = try await JSONExchange.bodyBytes(request, context: context)
        let key = IdempotencyKey(
            scope: credential.id.uuidString,
            key: keyText,
            requestHash: Hex.encode(JSONExchange.requestHash(bytes, sha256: SHA256.hash))
        )

        let body = try JSONExchange.decode(ActivationRequest.self, from: bytes)
        try Pricing.validate(months: body.months, amountDZD: body.amount_dzd)
        let member = try identify(body)
        let now = cards.now()
        switch try await store.activate(
            Activation(member: member, vendorID: vendorID, months: body.months, amountDZD: body.amount_dzd),
            key: key,
            now: now,
            abandonAfter: Self.abandonAfterSeconds,
            mintCard: cards.mint,
            response: { result in StoredResponse(try JSONExchange.encode(Self.body(result, now: now))) }
        ) {
        case .sold(_, let response):
            CardMetrics.activated()
            return JSONExchange.response(bytes: response.bytes, status: .created)
        case .replay(let stored):
            // Only sales are stored, and a sale is answered 201 Created.
            CardMetrics.activationReplayed()
            return JSONExchange.response(bytes: stored.bytes, status: .created, headers: [Self.replayedHeader: "true"])
        case .inFlight:
            throw MembershipError(.requestInFlight, "A request with this Idempotency-Key is still being processed; retry in a moment.")
        case .mismatch:
            throw MembershipError(.idempotencyKeyReused, "This Idempotency-Key was used for a different request; use a new key for a new sale.")
        }
    }

    /// The member the sale is for: the one the scanned card names, or the membership id typed in.
    private func identify(_ body: ActivationRequest) throws -> MemberReference {
        switch (body.card_token, body.membership_id) {
        case (let token?, nil):
            return .membershipID(try cards.membershipID(identifiedBy: token))
        case (nil, let membershipID?):
            guard Member.isMembershipID(membershipID) else {
                throw MembershipError(
                    .invalidFields,
                    "The membership id is not one.",
                    fields: ["membership_id": "must look like PEEZ-20251103-00002"]
                )
            }
            return .membershipID(membershipID)
        case (nil, nil):
            throw MembershipError(
                .invalidFields,
                "Say which member the months are for.",
                fields: ["card_token": "send the scanned card token, or else membership_id (e.g. PEEZ-20251103-00002)"]
            )
        case (.some, .some):
            throw MembershipError(
                .invalidFields,
                "Identify the member one way.",
                fields: ["card_token": "send the scanned card token or membership_id, not both"]
            )
        }
    }

    static func body(_ result: ActivationResult, now: Int64) -> ActivationBody {
        ActivationBody(
            period: PeriodBody(result.period, now: now),
            member: .init(uuid: result.member.uuid.lowercasedText, membership_id: result.member.membershipID, name: result.member.name),
            coverage_end: AlgiersCalendar.iso8601(result.coverageEnd),
            card: .init(token: result.card.token, token_id: result.card.tokenID, expires_at: AlgiersCalendar.iso8601(result.card.expiresAt))
        )
    }

    @Sendable func list(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let credential = try context.require(.vendor, .admin)
        let limit = try Self.limit(request.uri.queryParameters.get("limit"))
        var vendorID: UUID?
        if credential.role == .vendor {
            guard let ownVendor = credential.vendorID else { throw APIError.forbidden("This vendor credential is not tied to a vendor.") }
            vendorID = ownVendor
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
        _ = try context.require(.admin)
        guard let id = UUID(strictText: context.parameters.get("id") ?? "") else {
            throw MembershipError(.notFound, "Activation ids are UUIDs.")
        }
        let now = cards.now()
        let result = try await store.cancelPeriod(id: id, now: now)
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
