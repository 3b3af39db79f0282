import AsyncHTTPClient
public import Foundation
public import Membership
import NIOCore
import NIOHTTP1
import NIOSSL
import PeezBasics
import Synchronization
public import WalletPass

/// Google Wallet's REST API, as far as updates go: an access token from the service account's OAuth 2.0
/// JWT-bearer grant (RFC 7523), kept until a minute before it expires, and `PATCH` of a generic object.
public final class GoogleWalletClient: Sendable {
    private let client: HTTPClient
    private let account: GoogleServiceAccount
    private let apiURL: String
    private let tokens = AccessTokens()
    private let clock: WallClock

    /// A client of the Wallet API at `apiURL` (`https://walletobjects.googleapis.com` in production).
    /// Told whether the token endpoint takes the service account's key: the refusal's reason (a revoked or
    /// deleted key answers 400 `invalid_grant`), or nil once a token came.
    let keyStanding: @Sendable (_ refusal: String?) -> Void

    public init(
        account: GoogleServiceAccount,
        apiURL: String,
        clock: WallClock,
        keyStanding: @escaping @Sendable (_ refusal: String?) -> Void = { _ in }
    ) {
        self.keyStanding = keyStanding
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10), read: .seconds(30)))
        configuration.tlsConfiguration = TLSConfiguration.makeClientConfiguration()
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.account = account
        self.apiURL = apiURL.hasSuffix("/") ? String(apiURL.dropLast()) : apiURL
        self.clock = clock
    }

    public func shutdown() async throws { try await client.shutdown() }

    /// The current access token, fetched anew when none is held or it expires within a minute; updates sent at
    /// once share one fetch.
    func accessToken(renew: Bool = false) async throws -> String {
        try await tokens.token(now: clock(), renew: renew) { now in try await self.fetchAccessToken(now: now) }
    }

    /// A new access token from the token endpoint (RFC 7523's JWT-bearer grant), and when it expires.
    private func fetchAccessToken(now: Int64) async throws -> (value: String, expiresAt: Int64) {
        var request = HTTPClientRequest(url: account.tokenURI)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
        let assertion = try account.accessTokenAssertion(now: now)
        request.body = .bytes(ByteBuffer(string: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"))
        let response = try await client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 64 * 1024)
        guard response.status == .ok, let answer = try? JSONDecoder().decode(TokenAnswer.self, from: Data(body.readableBytesView)) else {
            // 400 or 401: the key itself is refused (revoked, deleted); anything else may pass by itself.
            if [400, 401].contains(response.status.code) {
                keyStanding(
                    "Google's token endpoint refused the service account's key (\(response.status.code)): it may be revoked or deleted; make a new key and set PEEZ_GOOGLE_WALLET_SERVICE_ACCOUNT"
                )
            }
            throw WalletError(.signingFailed, "the token endpoint answered \(response.status.code)")
        }
        keyStanding(nil)
        return (answer.access_token, now + (answer.expires_in ?? 3_600))
    }

    /// The access token held, and the one fetch under way: callers at once wait for the same fetch.
    actor AccessTokens {
        private var held: (value: String, expiresAt: Int64)?
        private var fetching: Task<(value: String, expiresAt: Int64), any Error>?

        func token(
            now: Int64,
            renew: Bool,
            fetch: @escaping @Sendable (Int64) async throws -> (value: String, expiresAt: Int64)
        ) async throws -> String {
            if !renew, let held, held.expiresAt - 60 > now { return held.value }
            if let fetching { return try await fetching.cancellingValue.value }
            let task = Task { try await fetch(now) }
            fetching = task
            defer { fetching = nil }
            // A worker told to stop does not wait for the token endpoint (up to 30 s).
            let fresh = try await task.cancellingValue
            held = fresh
            return fresh.value
        }
    }

    /// The token endpoint's answer (RFC 6749 §5.1), the fields used.
    struct TokenAnswer: Decodable {
        var access_token: String
        var expires_in: Int64?
    }

    /// Sends the object's new state: a `PATCH` of the object; when Google holds none (the member has not saved
    /// the link yet), the object inserted as it now is (and its class, which otherwise comes with the first
    /// save), so that a link saved later (Google keeps an object it holds) shows the member as they are, not as
    /// they were when the link was made.
    public func update(_ card: GoogleWalletCard) async -> PushResult {
        do {
            let body = try GoogleServiceAccount.json(card.object)
            let patched = try await send(.PATCH, "\(apiURL)/walletobjects/v1/genericObject/\(card.objectID)", body: body)
            guard patched == 404 else { return try await result(of: patched) }
            let classInserted = try await send(
                .POST,
                "\(apiURL)/walletobjects/v1/genericClass",
                body: try GoogleServiceAccount.json(GoogleGenericClass(id: card.classID))
            )
            // 409: the class exists already.
            guard [200, 409].contains(classInserted) else { return try await result(of: classInserted) }
            let inserted = try await send(.POST, "\(apiURL)/walletobjects/v1/genericObject", body: body)
            // Saved between the two: the next attempt patches it.
            if inserted == 409 { return .retryLater("409: the object was saved meanwhile") }
            return try await result(of: inserted)
        } catch {
            return .retryLater("\(error)")
        }
    }

    /// One call of the Wallet API with `body` (JSON) as the access token's holder: the status it answered.
    private func send(_ method: HTTPMethod, _ url: String, body: [UInt8]) async throws -> UInt {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "authorization", value: "Bearer \(try await accessToken())")
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await client.execute(request, timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 256 * 1024)
        return response.status.code
    }

    /// What a status of the Wallet API's comes to; a refused access token is renewed.
    private func result(of status: UInt) async throws -> PushResult {
        switch status {
        case 200: return .delivered
        case 401:
            _ = try await accessToken(renew: true)
            return .retryLater("401: the access token was refused")
        case 429, 500...599: return .retryLater("\(status)")
        default: return .refused("\(status)")
        }
    }
}

/// Drains the Google Wallet outbox: leases objects whose member changed since the last update, sends each one's
/// state, settles it (or retries it later with backoff).
public struct GoogleWalletWorker: Sendable {
    let store: any WalletStore
    let object: @Sendable (UUID) async throws -> GoogleWalletCard?
    let update: @Sendable (GoogleWalletCard) async -> PushResult
    let clock: WallClock
    let owner = UUID().uuidString

    public init(
        store: any WalletStore,
        object: @escaping @Sendable (UUID) async throws -> GoogleWalletCard?,
        update: @escaping @Sendable (GoogleWalletCard) async -> PushResult,
        clock: WallClock
    ) {
        self.store = store
        self.object = object
        self.update = update
        self.clock = clock
    }

    /// Sends every update due now; returns how many objects it settled.
    @discardableResult
    public func runOnce() async throws -> Int {
        var settled = 0
        while true {
            let updates = try await store.leaseGoogleWalletUpdates(
                owner: owner,
                now: clock(),
                leaseSeconds: WalletPushWorker.leaseSeconds,
                limit: WalletPushWorker.batch
            )
            guard !updates.isEmpty else { return settled }
            // Each object on its own: one slow answer holds up no other.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for update in updates { group.addTask { try await self.send(update) } }
                try await group.waitForAll()
            }
            settled += updates.count
        }
    }

    /// Sends updates as they come due until cancelled (see ``OutboxDrain``).
    public func run(signal: WalletPushSignal, ready: @escaping @Sendable () -> Bool) async {
        await OutboxDrain.run(
            name: "Google Wallet",
            signal: signal,
            ready: ready,
            lease: { limit in
                try await store.leaseGoogleWalletUpdates(owner: owner, now: clock(), leaseSeconds: WalletPushWorker.leaseSeconds, limit: limit)
            },
            deliver: { update in try await send(update) }
        )
    }

    private func send(_ update: WalletUpdate) async throws {
        var retry: String?
        if let card = try await object(update.member) {
            let result = await self.update(card)
            PushRecord.count(result, channel: "google")
            switch result {
            case .delivered, .gone: break
            case .retryLater(let reason), .refused(let reason): retry = reason
            }
        }
        let retryIn = WalletPushWorker.backoff(attempts: update.attempts)
        if let retry { PushRecord.failed(channel: "Google Wallet", member: update.member.lowercasedText, reason: retry, behind: 1, retryIn: retryIn) }
        try await store.settleGoogleWalletUpdate(update, owner: owner, retryAt: retry.map { _ in clock() + retryIn }, error: retry, now: clock())
    }
}
