import CardServices
import Console
import ConsoleCharts
import Foundation
import HTTPTypes
import Hummingbird
import Membership
import PeezAPI
import PeezBasics

/// The cash each shop owes PEEZ: every shop's balance (admin); a shop's account, entries and statements (admin,
/// or the shop's own device for its own shop and no other); remittances, adjustments and reversals, each sent with
/// an `Idempotency-Key` so a retry records nothing twice, and commissions (admin).
struct ShopAccountRoutes {
    let accounts: ShopAccountService

    func register(on router: Router<ServerRequestContext>) {
        router.on("/v1/accounts", method: .get, use: balances)
        router.on("/v1/accounts/limit", method: .get, use: balanceLimit)
        router.on("/v1/accounts/limit", method: .put, use: setBalanceLimit)
        router.on("/v1/counter/account", method: .get, use: counterAccount)
        router.on("/v1/vendors/{id}/account", method: .get, use: account)
        router.on("/v1/vendors/{id}/entries", method: .get, use: entries)
        router.on("/v1/vendors/{id}/statement", method: .get, use: statement)
        router.on("/v1/vendors/{id}/remittances", method: .post, use: remittance)
        router.on("/v1/vendors/{id}/adjustments", method: .post, use: adjustment)
        router.on("/v1/vendors/{id}/entries/{seq}/reversal", method: .post, use: reversal)
        router.on("/v1/vendors/{id}/commission", method: .get, use: commissions)
        router.on("/v1/vendors/{id}/commission", method: .put, use: setCommission)
    }

    /// The path's shop, which a vendor credential may name only when it is its own (another's is not found).
    private func shop(_ context: ServerRequestContext) throws -> UUID {
        let caller = try context.require(.admin, .vendor)
        let id = try CredentialRoutes.id(context, "shop")
        guard caller.role == .admin || caller.vendorID == id else { throw MembershipError(.notFound, "No shop has id \(id.lowercasedText).") }
        return id
    }

    private func actor(_ credential: APICredential, _ context: ServerRequestContext) -> AuditActor {
        AuditActor(credential: credential, address: context.clientAddress)
    }

    /// Every shop's balance, largest first, marked past the limit the query names (`limit_dzd`), or else the team's.
    @Sendable func balances(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try context.require(.admin)
        let limit = try await ShopAccountRoutes.limit(request.uri.queryParameters.get("limit_dzd"), accounts: accounts)
        let today = AlgiersCalendar.dayNumber(accounts.now())
        let shops = try await accounts.balances().map { ShopBalanceBody($0.balance, vendor: $0.vendor, today: today, limit: limit) }
        return try JSONExchange.response(ShopBalanceListBody(limit: limit, shops: shops))
    }

    /// The limit a query gives (`limit_dzd`, whole dinars), or the team's when it gives none.
    static func limit(_ text: String?, accounts: ShopAccountService) async throws -> Int64? {
        guard let text else { return try await accounts.store.balanceLimit() }
        guard text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let value = Int64(text),
            (0...ShopAccountService.maxLimitDZD).contains(value)
        else {
            throw APIError(
                .unprocessableContent,
                code: "invalid_fields",
                "The query has invalid parameters.",
                fields: ["limit_dzd": "must be a whole number of dinars from 0 to \(ShopAccountService.maxLimitDZD)"]
            )
        }
        return value
    }

    @Sendable func balanceLimit(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try context.require(.admin)
        return try JSONExchange.response(BalanceLimitBody(limit_dzd: try await accounts.store.balanceLimit()))
    }

    @Sendable func setBalanceLimit(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let admin = try context.require(.admin)
        let body = try await JSONExchange.decode(BalanceLimitRequest.self, request, context: context)
        return try JSONExchange.response(try await accounts.setBalanceLimit(body, by: actor(admin, context)))
    }

    @Sendable func account(_ request: Request, context: ServerRequestContext) async throws -> Response {
        try JSONExchange.response(try await accounts.account(of: try shop(context)), headers: [.cacheControl: "no-store"])
    }

    /// The calling device's own shop's account: what its counter shows.
    @Sendable func counterAccount(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let device = try context.require(.vendor)
        guard let id = device.vendorID else { throw MembershipError(.notFound, "This credential names no shop.") }
        return try JSONExchange.response(try await accounts.account(of: id), headers: [.cacheControl: "no-store"])
    }

    @Sendable func entries(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let id = try shop(context)
        let limit = try ActivationRoutes.limit(request.uri.queryParameters.get("limit"))
        let after = try CredentialRoutes.after(request.uri.queryParameters.get("after"))
        _ = try await accounts.vendor(id)
        let entries = try await accounts.store.shopEntries(of: id, after: after, limit: limit)
        return try JSONExchange.response(ShopEntryListBody(entries: entries.map(ShopEntryBody.init)))
    }

    @Sendable func statement(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let id = try shop(context)
        let query = request.uri.queryParameters
        var fields: [String: String] = [:]
        let today = AlgiersCalendar.dayNumber(accounts.now())
        let month = AlgiersCalendar.firstDay(ofMonth: AlgiersCalendar.month(ofDay: today))
        func day(_ name: String, default value: Int64) -> Int64 {
            guard let text = query.get(name) else { return value }
            guard let start = AlgiersCalendar.startOfDay(text) else {
                fields[name] = "must be a date written YYYY-MM-DD"
                return value
            }
            return AlgiersCalendar.dayNumber(start)
        }
        let from = day("from", default: month)
        let to = day("to", default: today)
        let format = ShopStatementFile.Format(rawValue: query.get("format") ?? "json")
        if format == nil { fields["format"] = "must be one of: " + ShopStatementFile.Format.allCases.map(\.rawValue).joined(separator: ", ") }
        let language = ChartLanguage(rawValue: query.get("lang") ?? "en")
        if language == nil { fields["lang"] = "must be en, fr or ar" }
        guard fields.isEmpty, let format, let language else {
            throw APIError(.unprocessableContent, code: "invalid_fields", "The query has invalid parameters.", fields: fields)
        }
        let statement = try await accounts.statement(of: id, from: from, to: to)
        let bytes = try ShopStatementFile.bytes(
            statement,
            as: format,
            language: language,
            texts: ConsoleRoutes.texts,
            madeAt: accounts.now(),
            reversedKinds: try await accounts.reversedKinds(in: statement)
        )
        var headers: HTTPFields = [.contentType: format.contentType, .cacheControl: "no-store"]
        if format != .json { headers[.contentDisposition] = "attachment; filename=\"\(ShopStatementFile.name(statement, as: format))\"" }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// The shop a team entry is for (admin only) and the request's key.
    private func teamEntry(_ request: Request, _ context: ServerRequestContext) throws -> (APICredential, UUID, String) {
        let admin = try context.require(.admin)
        let id = try CredentialRoutes.id(context, "shop")
        let key = try ActivationRoutes.idempotencyKey(request, purpose: "a retry cannot record the entry twice")
        return (admin, id, key)
    }

    private func answer(_ recorded: (entry: ShopEntry, replayed: Bool)) throws -> Response {
        try JSONExchange.response(
            ShopEntryBody(recorded.entry),
            status: .created,
            headers: recorded.replayed ? [ActivationRoutes.replayedHeader: "true"] : [:]
        )
    }

    @Sendable func remittance(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let (admin, id, key) = try teamEntry(request, context)
        let body = try await JSONExchange.decode(RemittanceRequest.self, request, context: context)
        return try answer(
            try await accounts.recordRemittance(body, vendorID: id, keyScope: admin.id.uuidString, key: key, by: actor(admin, context))
        )
    }

    @Sendable func adjustment(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let (admin, id, key) = try teamEntry(request, context)
        let body = try await JSONExchange.decode(AdjustmentRequest.self, request, context: context)
        return try answer(
            try await accounts.recordAdjustment(body, vendorID: id, keyScope: admin.id.uuidString, key: key, by: actor(admin, context))
        )
    }

    @Sendable func reversal(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let (admin, id, key) = try teamEntry(request, context)
        let seqText = context.parameters.get("seq") ?? ""
        guard seqText.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let seq = Int64(seqText), seq > 0 else {
            throw MembershipError(.notFound, "Entries are numbered from 1.")
        }
        let body = try await JSONExchange.decode(ReversalRequest.self, request, context: context)
        return try answer(
            try await accounts.reverse(entry: seq, body, vendorID: id, keyScope: admin.id.uuidString, key: key, by: actor(admin, context))
        )
    }

    @Sendable func commissions(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try context.require(.admin)
        let id = try CredentialRoutes.id(context, "shop")
        _ = try await accounts.vendor(id)
        return try JSONExchange.response(CommissionListBody(commissions: try await accounts.store.commissions(of: id).map(CommissionBody.init)))
    }

    @Sendable func setCommission(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let admin = try context.require(.admin)
        let id = try CredentialRoutes.id(context, "shop")
        let body = try await JSONExchange.decode(CommissionRequest.self, request, context: context)
        return try JSONExchange.response(CommissionBody(try await accounts.setCommission(body, vendorID: id, by: actor(admin, context))))
    }
}
