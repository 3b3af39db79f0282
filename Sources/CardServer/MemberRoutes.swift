import CardServices
import CardToken
import Foundation
import Hummingbird
import Membership
import PeezAPI
import PeezBasics

/// `/v1/members`: the backend's view of members, their cards and subscriptions.
struct MemberRoutes {
    let cards: CardService
    let changes: MemberChangeService
    /// Members and their periods: what these routes read and write beside the card and change use cases.
    let store: any MemberStore & LedgerStore

    func register(on router: Router<ServerRequestContext>) {
        router.on("/v1/members", method: .post, use: create)
        router.on("/v1/members/{uuid}", method: .get, use: show)
        router.on("/v1/members/{uuid}", method: .patch, use: update)
        router.on("/v1/members/{uuid}/card", method: .get, use: card)
        router.on("/v1/members/{uuid}/card.png", method: .get, use: cardPNG)
        router.on("/v1/members/{uuid}/subscription", method: .get, use: subscription)
        router.on("/v1/members/{uuid}/device-key", method: .post, use: registerDeviceKey)
        router.on("/v1/members/{uuid}/device-key", method: .delete, use: removeDeviceKey)
    }

    @Sendable func create(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try context.require(.backend, .admin)
        let body = try await JSONExchange.decode(CreateMemberRequest.self, request, context: context)
        let draft = try MemberDraft(
            uuid: body.uuid,
            name: body.name,
            phone: body.phone,
            email: body.email,
            neighbourhood: body.neighbourhood,
            language: body.language ?? .fr
        ).validated()
        let (member, created) = try await store.createMember(draft, now: cards.now())
        return try JSONExchange.response(MemberBody(member), status: created ? .created : .ok)
    }

    @Sendable func show(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try context.require(.backend, .admin)
        return try JSONExchange.response(MemberBody(try await member(context)))
    }

    @Sendable func update(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let caller = try context.require(.backend, .admin)
        let body = try await JSONExchange.decode(UpdateMemberRequest.self, request, context: context)
        let patch = MemberPatch(name: body.name, phone: body.phone, email: body.email, neighbourhood: body.neighbourhood, language: body.language)
        let (uuid, now) = (try memberUUID(context), cards.now())
        let changed = [
            "name": body.name, "phone": body.phone, "email": body.email, "neighbourhood": body.neighbourhood, "language": body.language?.rawValue,
        ]
        .compactMap { $0.value == nil ? nil : $0.key }.sorted()
        let audit = Self.operator(caller, context)?.entry(
            "member.update",
            uuid,
            "changed: \(changed.joined(separator: ", "))",
            [AuditValue("fields", changed.joined(separator: ","))],
            at: now
        )
        let updated = try await store.updateMember(uuid: uuid, patch: patch, now: now, audit: audit)
        return try JSONExchange.response(MemberBody(updated))
    }

    @Sendable func card(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try context.require(.backend, .admin)
        let member = try await member(context)
        let (card, png) = try await cards.currentCard(memberUUID: member.uuid)
        let body = CardBody(
            member: MemberBody(member),
            subscription: CoverageBody(coverageEnd: card.coverageEnd, now: cards.now()),
            token: card.token,
            token_id: card.tokenID,
            issued_at: AlgiersCalendar.iso8601(card.issuedAt),
            expires_at: AlgiersCalendar.iso8601(card.expiresAt),
            qr_png_base64: Data(png).base64EncodedString()
        )
        return try JSONExchange.response(body, headers: [.eTag: "\"\(card.tokenID)\"", .cacheControl: "private, no-cache"])
    }

    @Sendable func cardPNG(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try context.require(.backend, .admin)
        let (card, png) = try await cards.currentCard(memberUUID: try memberUUID(context))
        let etag = "\"\(card.tokenID)\""
        let headers: HTTPFields = [.eTag: etag, .cacheControl: "private, no-cache"]
        if request.headers[.ifNoneMatch] == etag { return Response(status: .notModified, headers: headers) }
        var fields = headers
        fields[.contentType] = "image/png"
        return Response(status: .ok, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: png)))
    }

    @Sendable func subscription(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try context.require(.backend, .admin)
        let member = try await member(context)
        let periods = try await store.periods(memberUUID: member.uuid)
        let now = cards.now()
        let body = SubscriptionBody(
            member_uuid: member.uuid.lowercasedText,
            membership_id: member.membershipID,
            coverage: CoverageBody(coverageEnd: CoverageSchedule.coverageEnd(periods), now: now),
            periods: periods.reversed().map { PeriodBody($0, now: now) }
        )
        return try JSONExchange.response(body)
    }

    /// Binds the member's cards to a new phone: earlier cards are revoked, the next card names the key.
    @Sendable func registerDeviceKey(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let caller = try context.require(.backend, .admin)
        let body = try await JSONExchange.decode(DeviceKeyRequest.self, request, context: context)
        let key = try body.deviceKey()
        let (member, _) = try await changes.replaceDeviceKey(memberUUID: try memberUUID(context), with: key, by: Self.operator(caller, context))
        return try JSONExchange.response(MemberBody(member))
    }

    /// Unbinds the member's cards (a lost phone): earlier cards are revoked, the next card is bound to nothing.
    @Sendable func removeDeviceKey(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let caller = try context.require(.backend, .admin)
        let (member, _) = try await changes.replaceDeviceKey(memberUUID: try memberUUID(context), with: nil, by: Self.operator(caller, context))
        return try JSONExchange.response(MemberBody(member))
    }

    /// The actor the audit trail names for a change an operator made (an admin secret); the app's backend binds
    /// phones as its members ask, and is not an operator.
    static func `operator`(_ caller: APICredential, _ context: ServerRequestContext) -> AuditActor? {
        caller.role == .admin ? AuditActor(credential: caller, address: context.clientAddress) : nil
    }

    private func memberUUID(_ context: ServerRequestContext) throws -> UUID {
        guard let uuid = UUID(strictText: context.parameters.get("uuid") ?? "") else {
            throw MembershipError(.notFound, "Member ids are UUIDs.")
        }
        return uuid
    }

    private func member(_ context: ServerRequestContext) async throws -> Member {
        let uuid = try memberUUID(context)
        guard let member = try await store.member(uuid: uuid) else {
            throw MembershipError(.notFound, "No member has uuid \(uuid.lowercasedText).")
        }
        return member
    }
}
