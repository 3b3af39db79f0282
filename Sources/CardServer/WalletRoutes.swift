import CardServices
import Foundation
import HTTPTypes
import Hummingbird
import Membership
import NIOCore
import PeezAPI
import PeezBasics
import WalletPass

/// Apple Wallet: the pass the backend hands to the app, and the web service Wallet calls (Apple's documented
/// contract: register and unregister a device for a pass, the passes changed since a tag, the latest pass, logs),
/// served under the path of the configured web service URL. Without a Wallet configuration the web service's routes
/// answer 404 and the backend's 501 `not_configured`; with one that cannot be used now (an expired certificate, an
/// unreadable file) every one answers 503 `wallet_unavailable` with the reason, and the card service serves on.
struct WalletRoutes {
    let wallet: WalletService?
    let google: GoogleWalletService?
    /// Where a Wallet that cannot be used says why (and is said to be so once its certificate ends).
    let parts: ServiceParts
    let now: WallClock
    /// The devices registered for passes, and their logs.
    let store: any WalletStore
    /// The web service's path (`/wallet` unless the configured URL says otherwise).
    let base: String
    /// The log route takes no credential (Apple's design): bounded per client address and overall, so log
    /// traffic cannot crowd out sales.
    let logLimiter = RateLimiter(perClient: .init(perSecond: 2, burst: 10), overall: .init(perSecond: 50, burst: 100))

    static let defaultBase = "/wallet"

    func register(on router: Router<ServerRequestContext>) {
        router.on("/v1/members/{uuid}/pass.pkpass", method: .get, use: pass)
        router.on("/v1/members/{uuid}/google-wallet", method: .get, use: googleSaveLink)
        let devices = "\(base)/v1/devices/{deviceLibraryIdentifier}/registrations/{passTypeIdentifier}"
        router.on(RouterPath("\(devices)/{serialNumber}"), method: .post, use: registerDevice)
        router.on(RouterPath("\(devices)/{serialNumber}"), method: .delete, use: unregisterDevice)
        router.on(RouterPath(devices), method: .get, use: updatedPasses)
        router.on(RouterPath("\(base)/v1/passes/{passTypeIdentifier}/{serialNumber}"), method: .get, use: latestPass)
        router.on(RouterPath("\(base)/v1/log"), method: .post, use: log)
    }

    private func configured() throws -> WalletService {
        try usable(.appleWallet, wallet, orElse: MembershipError(.notFound, "Apple Wallet is not configured on this service."))
    }

    /// `service` when its part can be used now; 503 with the reason when it is configured but cannot be (an Apple
    /// pass certificate or WWDR intermediate that ended while the service ran is found here); `otherwise` when it
    /// is not configured at all.
    private func usable<S>(_ part: ServiceParts.Part, _ service: S?, orElse otherwise: any Error) throws -> S {
        if part == .appleWallet, let identity = wallet?.identity, parts.state(.appleWallet)?.status == .ok {
            let ended = [
                ("Apple pass certificate (PEEZ_WALLET_CERTIFICATE)", identity.certificate),
                ("WWDR intermediate (PEEZ_WALLET_WWDR)", identity.intermediate),
            ]
            .first { $0.1.notAfter < now() }
            if let (name, certificate) = ended {
                parts.markUnavailable(.appleWallet, "the \(name) ended on \(AlgiersCalendar.iso8601(certificate.notAfter)): renew it")
            }
        }
        if let state = parts.state(part), state.status == .unavailable {
            throw APIError(
                .serviceUnavailable,
                code: "wallet_unavailable",
                "\(part == .googleWallet ? "Google" : "Apple") Wallet cannot be used now: \(state.reason ?? "see peez check"). The card service works on."
            )
        }
        guard let service else { throw otherwise }
        return service
    }

    /// The backend's routes on a service without that Wallet: 501, which says the service lacks the feature
    /// (not that the member is missing).
    static func notConfigured(_ wallet: String, settings: String) -> APIError {
        APIError(
            HTTPResponse.Status(code: 501),
            code: "not_configured",
            "\(wallet) is not configured on this service: set \(settings) (see the README's Wallet section)."
        )
    }

    /// `GET /v1/members/{uuid}/pass.pkpass` (backend): a new pass for the app to hand to PassKit.
    @Sendable func pass(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try context.require(.backend, .admin)
        let wallet = try usable(.appleWallet, wallet, orElse: Self.notConfigured("Apple Wallet", settings: "PEEZ_WALLET_*"))
        guard let uuid = UUID(strictText: context.parameters.get("uuid") ?? "") else { throw MembershipError(.notFound, "Member ids are UUIDs.") }
        return Self.passResponse(try await wallet.issuePass(memberUUID: uuid))
    }

    /// `GET /v1/members/{uuid}/google-wallet` (backend): the "Save to Google Wallet" link for the app to open.
    @Sendable func googleSaveLink(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try context.require(.backend, .admin)
        let google = try usable(.googleWallet, google, orElse: Self.notConfigured("Google Wallet", settings: "PEEZ_GOOGLE_WALLET_*"))
        guard let uuid = UUID(strictText: context.parameters.get("uuid") ?? "") else { throw MembershipError(.notFound, "Member ids are UUIDs.") }
        return try JSONExchange.response(
            GoogleWalletLinkBody(save_url: try await google.saveURL(memberUUID: uuid)),
            headers: [.cacheControl: "no-store"]
        )
    }

    /// The pass's type and serial from the path, or 404: another pass type, or a serial that is no member's uuid.
    private func passPath(_ context: ServerRequestContext, _ wallet: WalletService) throws -> UUID {
        guard context.parameters.get("passTypeIdentifier") == wallet.identity.passTypeIdentifier,
            let serial = UUID(strictText: context.parameters.get("serialNumber") ?? "")
        else { throw MembershipError(.notFound, "No such pass.") }
        return serial
    }

    /// A device library identifier as Wallet sends it: 1 to 128 letters, digits, `-` and `.`; else 400.
    private func device(_ context: ServerRequestContext) throws -> String {
        let device = context.parameters.get("deviceLibraryIdentifier") ?? ""
        guard (1...128).contains(device.utf8.count), device.utf8.allSatisfy(Self.isIdentifierByte) else {
            throw APIError.badRequest("The device library identifier must be 1 to 128 letters, digits, '-' or '.'.")
        }
        return device
    }

    private static func isIdentifierByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D || byte == 0x2E
    }

    /// The pass's token checked, or 401.
    private func authenticate(_ context: ServerRequestContext, serial: UUID, _ wallet: WalletService) async throws {
        guard let token = context.passToken, try await wallet.authenticates(serial: serial, token: token) else { throw Self.unauthenticated }
    }

    static let unauthenticated = APIError.unauthenticated("Send the pass's token as 'Authorization: ApplePass <token>'.")

    /// Register a device for a pass's updates: 201, or 200 when it already was (its push token updated).
    @Sendable func registerDevice(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let wallet = try configured()
        let serial = try passPath(context, wallet)
        let device = try device(context)
        try await authenticate(context, serial: serial, wallet)
        let body = try await JSONExchange.decode(WalletRegistrationRequest.self, request, context: context)
        guard (1...256).contains(body.pushToken.utf8.count), body.pushToken.utf8.allSatisfy({ Self.isHexDigit($0) }) else {
            throw MembershipError(.invalidFields, "The push token is not valid.", fields: ["pushToken": "must be 1 to 256 hexadecimal digits"])
        }
        switch try await store.registerWalletDevice(
            device,
            member: serial,
            pushToken: body.pushToken.lowercased(),
            now: wallet.cards.now()
        )
        {
        case .created: return Response(status: .created)
        case .updated: return Response(status: .ok)
        case .full:
            throw APIError(
                .forbidden,
                code: "too_many_devices",
                "This pass is registered on \(WalletPassLimits.maxDevices) devices already: unregister one (remove the pass from it) first."
            )
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    /// Unregister a device: 200 (whether or not it was registered), 401.
    @Sendable func unregisterDevice(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let wallet = try configured()
        let serial = try passPath(context, wallet)
        let device = try device(context)
        try await authenticate(context, serial: serial, wallet)
        _ = try await store.unregisterWalletDevice(device, member: serial)
        return Response(status: .ok)
    }

    /// How far behind the answering instance's clock a tag stays: more than two instances' clocks may differ by,
    /// plus a write's time in its transaction.
    static let tagLagSeconds: Int64 = 60

    /// The serial numbers of the device's passes changed since the tag: 200 with them and the next tag, 204 for none.
    @Sendable func updatedPasses(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let wallet = try configured()
        guard context.parameters.get("passTypeIdentifier") == wallet.identity.passTypeIdentifier else {
            throw MembershipError(.notFound, "No such pass type.")
        }
        let device = try device(context)
        var since: Int64?
        if let tag = request.uri.queryParameters.get("passesUpdatedSince"), !tag.isEmpty {
            guard tag.utf8.count <= 19, tag.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = Int64(tag) else {
                throw APIError.badRequest("passesUpdatedSince must be a tag this service gave (a whole number).")
            }
            since = value
        }
        let updated = try await store.walletPassesUpdated(device: device, since: since)
        guard let newest = updated.map(\.changedAt).max() else { return Response(status: .noContent) }
        // Tags are times, and a change committed after this answer may carry an earlier one: stamped later in this
        // very second, by an instance whose clock is behind this one's, or in a transaction begun before this
        // read. So the tag stays `tagLagSeconds` behind this clock, and such a change is listed next time (a pass
        // listed again is answered 304 to the device's If-Modified-Since; it never misses one).
        let tag = min(newest, wallet.cards.now() - 1 - Self.tagLagSeconds)
        return try JSONExchange.response(
            WalletUpdatedPassesBody(serialNumbers: updated.map { $0.member.lowercasedText }, lastUpdated: String(tag))
        )
    }

    /// The latest pass: 200 with `Last-Modified`, 304 when not modified since `If-Modified-Since`, 401.
    @Sendable func latestPass(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let wallet = try configured()
        let serial = try passPath(context, wallet)
        let since = request.headers[.ifModifiedSince].flatMap(HTTPDate.parse)
        switch try await wallet.latestPass(serial: serial, token: context.passToken ?? "", ifModifiedSince: since) {
        case .unauthenticated: throw Self.unauthenticated
        case .notModified(let changed): return Response(status: .notModified, headers: [.lastModified: HTTPDate.format(changed)])
        case .pass(let pass): return Self.passResponse(pass)
        }
    }

    /// Wallet's log lines: kept, the newest only, each bounded.
    @Sendable func log(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let wallet = try configured()
        guard logLimiter.allow(context.clientAddress) else {
            throw APIError(.tooManyRequests, code: "rate_limited", "Too many log requests; Wallet's logs are kept, but not this fast.")
        }
        let bytes = try await JSONExchange.bodyBytes(request, context: context)
        guard case .array(let entries)? = JSONValue(parsing: bytes)?.object?["logs"] else {
            throw MembershipError(.invalidFields, "The body must be {\"logs\": [text, …]}.", fields: ["logs": "must be a list of text lines"])
        }
        let lines = entries.compactMap { entry -> String? in if case .string(let line) = entry { return line } else { return nil } }
        guard lines.count == entries.count, lines.count <= WalletLog.maxPerRequest else {
            throw MembershipError(
                .invalidFields,
                "The log lines are not valid.",
                fields: ["logs": "must be at most \(WalletLog.maxPerRequest) text lines"]
            )
        }
        try await store.keepWalletLogs(lines, now: wallet.cards.now())
        return Response(status: .ok)
    }

    static func passResponse(_ pass: WalletService.SignedPass) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: "application/vnd.apple.pkpass", .lastModified: HTTPDate.format(pass.lastModified),
                .cacheControl: "private, no-cache",
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: pass.archive))
        )
    }
}
