import AsyncHTTPClient
import Foundation
public import Membership
import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization
public import WalletPass

/// Apple's push service for Wallet pass updates: HTTP/2 over TLS, token authentication (an ES256 JWT made from
/// the provider key, refreshed before it is an hour old), the pass type id as topic, an empty JSON payload sent
/// as a background push at priority 5 (what Apple's Wallet guide asks for a pass update; `apns-push-type` is
/// required on watchOS 6 and later).
public final class APNsClient: Sendable {
    /// How the provider proves itself to APNs: a token signed with an auth key (.p8), or TLS with the pass type
    /// certificate (Apple's Wallet guide: a pass's updates may be pushed with its own certificate).
    public enum Authentication: Sendable {
        case token(APNsAuthenticationKey)
        /// The certificate chain (the pass type certificate first) and its private key, PEM.
        case certificate(chainPEM: [UInt8], keyPEM: [UInt8])
    }

    private let client: HTTPClient
    private let server: String
    private let key: APNsAuthenticationKey?
    private let topic: String
    private let tokens = Mutex<(token: String, issuedAt: Int64)?>(nil)
    private let clock: WallClock

    /// Provider tokens are made anew after this many seconds (Apple refuses one older than an hour, and asks
    /// that they not change more often than every 20 minutes).
    public static let tokenLifetime: Int64 = 50 * 60

    /// A client of `server` (`https://api.push.apple.com` in production) trusting `certificateAuthority` (PEM)
    /// besides the system's roots when given (a test server's CA).
    public convenience init(
        server: String,
        key: APNsAuthenticationKey,
        topic: String,
        certificateAuthority: String?,
        clock: WallClock
    ) throws {
        try self.init(server: server, authentication: .token(key), topic: topic, certificateAuthority: certificateAuthority, clock: clock)
    }

    /// A client of `server` proving itself with `authentication`.
    public init(
        server: String,
        authentication: Authentication,
        topic: String,
        certificateAuthority: String?,
        clock: WallClock
    ) throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        tls.applicationProtocols = ["h2"]
        switch authentication {
        case .token(let key):
            self.key = key
        case .certificate(let chainPEM, let keyPEM):
            self.key = nil
            tls.certificateChain = try NIOSSLCertificate.fromPEMBytes(chainPEM).map { .certificate($0) }
            tls.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: keyPEM, format: .pem))
        }
        if let certificateAuthority {
            tls.additionalTrustRoots = [.file(certificateAuthority)]
        }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls,
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(5), read: .seconds(10))
        )
        configuration.httpVersion = .automatic
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.server = server.hasSuffix("/") ? String(server.dropLast()) : server
        self.topic = topic
        self.clock = clock
    }

    public func shutdown() async throws { try await client.shutdown() }

    /// The current provider token, made anew when older than ``tokenLifetime`` or when `renew`; nil when the
    /// client proves itself with a certificate.
    func providerToken(renew: Bool = false) throws -> String? {
        guard let key else { return nil }
        let now = clock()
        if !renew, let current = tokens.withLock({ $0 }), now - current.issuedAt < Self.tokenLifetime { return current.token }
        let token = try key.token(issuedAt: now)
        tokens.withLock { $0 = (token, now) }
        return token
    }

    /// How long one push may take before it is retried later: well within a lease, so an unreachable APNs
    /// holds no update past it.
    static let pushTimeout: TimeAmount = .seconds(10)

    /// Tells the device holding `deviceToken` that its pass changed.
    public func push(deviceToken: String) async -> PushResult {
        do {
            var request = HTTPClientRequest(url: "\(server)/3/device/\(deviceToken)")
            request.method = .POST
            if let token = try providerToken() { request.headers.add(name: "authorization", value: "bearer \(token)") }
            request.headers.add(name: "apns-topic", value: topic)
            request.headers.add(name: "apns-push-type", value: "background")
            request.headers.add(name: "apns-priority", value: "5")
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: "{}"))
            let response = try await client.execute(request, timeout: Self.pushTimeout)
            let body = try await response.body.collect(upTo: 16 * 1024)
            let reason = (try? JSONDecoder().decode(ErrorAnswer.self, from: Data(body.readableBytesView)))?.reason ?? ""
            switch (response.status.code, reason) {
            case (200, _): return .delivered
            case (410, _), (400, "BadDeviceToken"), (400, "DeviceTokenNotForTopic"): return .gone("\(response.status.code) \(reason)")
            case (403, "ExpiredProviderToken"):
                _ = try providerToken(renew: true)
                return .retryLater("403 ExpiredProviderToken")
            case (429, _), (500...599, _): return .retryLater("\(response.status.code) \(reason)")
            default: return .refused("\(response.status.code) \(reason)")
            }
        } catch {
            return .retryLater("\(error)")
        }
    }
}

extension APNsClient {
    /// APNs' error body: `{"reason": "BadDeviceToken"}` (and a timestamp for 410).
    struct ErrorAnswer: Decodable {
        var reason: String
    }
}
