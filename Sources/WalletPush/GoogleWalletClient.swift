import AsyncHTTPClient
public import Foundation
public import Membership
import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization
public import WalletPass

/// Google Wallet's REST API, as far as updates go: an access token from the service account's OAuth 2.0
/// JWT-bearer grant (RFC 7523), kept until a minute before it expires, and `PATCH` of a generic object.
public final class GoogleWalletClient: Sendable {
    private let client: HTTPClient
    private let account: GoogleServiceAccount
    private let apiURL: String
    private let token = Mutex<(value: String, expiresAt: Int64)?>(nil)
    private let clock: @Sendable () -> Int64

    /// A client of the Wallet API at `apiURL` (`https://walletobjects.googleapis.com` in production).
    public init(account: GoogleServiceAccount, apiURL: String, clock: @escaping @Sendable () -> Int64) {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10), read: .seconds(30)))
        configuration.tlsConfiguration = TLSConfiguration.makeClientConfiguration()
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.account = account
        self.apiURL = apiURL.hasSuffix("/") ? String(apiURL.dropLast()) : apiURL
        self.clock = clock
    }

    public func shutdown() async throws { try await client.shutdown() }

    /// The current access token, fetched anew when none is held or it expires within a minute.
    func accessToken(renew: Bool = false) async throws -> String {
        let now = clock()
        if !renew, let held = token.withLock({ $0 }), held.expiresAt - 60 > now { return held.value }
        var request = HTTPClientRequest(url: account.tokenURI)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
        let assertion = try account.accessTokenAssertion(now: now)
        request.body = .bytes(ByteBuffer(string: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"))
        let response = try await client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 64 * 1024)
        guard response.status == .ok, let answer = try? JSONDecoder().decode(TokenAnswer.self, from: Data(body.readableBytesView)) else {
            throw WalletError(.signingFailed, "the token endpoint answered \(response.status.code)")
        }
        token.withLock { $0 = (answer.access_token, now + (answer.expires_in ?? 3_600)) }
        return answer.access_token
    }

    /// The token endpoint's answer (RFC 6749 §5.1), the fields used.
    struct TokenAnswer: Decodable {
        var access_token: String
        var expires_in: Int64?
    }

    /// Sends the object's new state.
    public func update(_ card: GoogleWalletCard) async -> APNsClient.Outcome {
        do {
            var request = HTTPClientRequest(url: "\(apiURL)/walletobjects/v1/genericObject/\(card.objectID)")
            request.method = .PATCH
            request.headers.add(name: "authorization", value: "Bearer \(try await accessToken())")
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: GoogleServiceAccount.json(card.object)))
            let response = try await client.execute(request, timeout: .seconds(30))
            _ = try await response.body.collect(upTo: 256 * 1024)
            switch response.status.code {
            case 200: return .delivered
            // The member never saved the object: nothing to update.
            case 404: return .deviceGone("404: the member has not saved the pass")
            case 401:
                _ = try await accessToken(renew: true)
                return .retryLater("401: the access token was refused")
            case 429, 500...599: return .retryLater("\(response.status.code)")
            default: return .refused("\(response.status.code)")
            }
        } catch {
            return .retryLater("\(error)")
        }
    }
}

/// Drains the Google Wallet outbox: leases objects whose member changed since the last update, sends each one's
/// state, settles it (or retries it later with backoff).
public struct GoogleWalletWorker: Sendable {
    let store: any WalletStore
    let object: @Sendable (UUID) async throws -> GoogleWalletCard?
    let update: @Sendable (GoogleWalletCard) async -> APNsClient.Outcome
    let clock: @Sendable () -> Int64
    let owner = UUID().uuidString

    public init(
        store: any WalletStore,
        object: @escaping @Sendable (UUID) async throws -> GoogleWalletCard?,
        update: @escaping @Sendable (GoogleWalletCard) async -> APNsClient.Outcome,
        clock: @escaping @Sendable () -> Int64
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
            for update in updates {
                var retry: String?
                if let card = try await object(update.member) {
                    switch await self.update(card) {
                    case .delivered, .deviceGone: break
                    case .retryLater(let reason), .refused(let reason): retry = reason
                    }
                }
                try await store.settleGoogleWalletUpdate(
                    update,
                    owner: owner,
                    retryAt: retry.map { _ in clock() + WalletPushWorker.backoff(attempts: update.attempts) },
                    error: retry
                )
            }
            settled += updates.count
        }
    }
}
