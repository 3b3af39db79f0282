import CardCrypto
import CardServer
import CardServices
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Membership
import MembershipSQL
import MembershipSQLite
import PeezAPI
import Synchronization
import TestSupport
import Testing

/// A running card service for tests: a real SQLite file, a freshly generated signing key, a clock the test
/// moves, and one credential of each role.
final class ServerHarness: Sendable {
    static let adminSecret = "peez_admin_test"
    static let backendSecret = "peez_backend_test"
    static let vendorSecret = "peez_vendor_test"
    static let otherVendorSecret = "peez_vendor_other_test"

    let folder: TemporaryFolder
    let database: SQLiteDatabase
    let store: SQLMembershipStore
    let cards: CardService
    let signingKey: Ed25519PrivateKey
    let vendor: Vendor
    let otherVendor: Vendor
    private let clock: TestClock

    var now: Int64 { clock.now }
    func advance(by seconds: Int64) { clock.advance(by: seconds) }

    private init(
        folder: TemporaryFolder,
        database: SQLiteDatabase,
        store: SQLMembershipStore,
        signingKey: Ed25519PrivateKey,
        start: Int64,
        vendor: Vendor,
        otherVendor: Vendor
    ) {
        self.folder = folder
        self.database = database
        self.store = store
        self.signingKey = signingKey
        self.vendor = vendor
        self.otherVendor = otherVendor
        let clock = TestClock(start)
        self.clock = clock
        self.cards = CardService(store: store, keyRing: try! KeyRing(signingKey: signingKey, publishedKeys: []), clock: clock.wallClock)
    }

    /// 2026-01-31 10:00 in Algiers.
    static let start: Int64 = 1_769_850_000

    /// The test process's metrics backend, bootstrapped once (swift-metrics allows no second time).
    static let metrics = ServerMetrics.bootstrap()

    static func make() async throws -> ServerHarness {
        let folder = try TemporaryFolder()
        let database = try await SQLiteDatabase.open(path: folder.file("ledger.sqlite"))
        let store = try await SQLMembershipStore(database: database, now: start)
        let vendor = try await store.createVendor(name: "Boucherie Centrale", category: "boucherie", neighbourhood: "centre-ville", now: start)
        let other = try await store.createVendor(name: "Pressing Gambetta", category: "pressing", neighbourhood: "gambetta", now: start)
        try await Provisioning.saveCredential(store: store, secret: adminSecret, role: .admin, vendorID: nil, label: "t", now: start)
        try await Provisioning.saveCredential(store: store, secret: backendSecret, role: .backend, vendorID: nil, label: "t", now: start)
        try await Provisioning.saveCredential(store: store, secret: vendorSecret, role: .vendor, vendorID: vendor.id, label: "t", now: start)
        try await Provisioning.saveCredential(store: store, secret: otherVendorSecret, role: .vendor, vendorID: other.id, label: "t", now: start)
        return ServerHarness(
            folder: folder,
            database: database,
            store: store,
            signingKey: try Ed25519PrivateKey.generate(),
            start: start,
            vendor: vendor,
            otherVendor: other
        )
    }

    /// Runs `body` against the service listening on a real loopback socket.
    static func withLiveServer(
        limits: ConnectionLimits = ConnectionLimits(),
        wallet: (@Sendable (ServerHarness) throws -> WalletService)? = nil,
        googleWallet: (@Sendable (ServerHarness) throws -> GoogleWalletService)? = nil,
        publicURL: String? = nil,
        _ body: @Sendable (ServerHarness, any TestClientProtocol) async throws -> Void
    ) async throws {
        let harness = try await make()
        defer { harness.folder.remove() }
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, limits: limits)
        configuration.publicURL = publicURL
        let app = buildApplication(
            cards: harness.cards,
            ledger: harness.store,
            metrics: metrics,
            configuration: configuration,
            wallet: try wallet?(harness),
            googleWallet: try googleWallet?(harness)
        )
        try await app.test(.live) { client in try await body(harness, client) }
        try await harness.database.close()
    }
}

/// A response reduced to what tests look at.
struct Reply: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var body: [UInt8]

    /// The body as the API's type for it (PeezAPI); a body that is not one fails with the status and the body.
    func decoded<T: Decodable>(_ type: T.Type) throws -> T {
        do { return try JSONDecoder().decode(T.self, from: Data(body)) } catch { throw HarnessError(reply: self) }
    }

    /// The error the body carries, in the service's error shape.
    var error: ServiceErrorBody.Detail? { try? decoded(ServiceErrorBody.self).error }
    var errorCode: String? { error?.code }
    var errorFields: [String: String] { error?.fields ?? [:] }
    /// The body as JSON values, for the few tests that look at the wire itself (a null sent, not left out).
    var rawJSON: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
    /// The body's text, for a failure's message.
    var text: String { String(decoding: body, as: UTF8.self) }
}

extension TestClientProtocol {
    /// One request with an optional bearer secret and JSON body.
    func send(
        _ method: HTTPRequest.Method,
        _ path: String,
        secret: String? = nil,
        json: Any? = nil,
        raw: [UInt8]? = nil,
        headers extra: HTTPFields = [:]
    ) async throws -> Reply {
        var headers = extra
        if let secret { headers[.authorization] = "Bearer \(secret)" }
        var body: ByteBuffer? = nil
        if let json {
            body = ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json))
            headers[.contentType] = "application/json"
        } else if let raw {
            body = ByteBuffer(bytes: raw)
        }
        return try await execute(uri: path, method: method, headers: headers, body: body) { response in
            Reply(status: response.status, headers: response.headers, body: Array(response.body.readableBytesView))
        }
    }

    /// Creates a member through the API and returns its uuid.
    func createMember(_ index: Int = 1, name: String = "Ahmed Mohamed") async throws -> String {
        let uuid = UUID().uuidString.lowercased()
        let reply = try await send(
            .post,
            "/v1/members",
            secret: ServerHarness.backendSecret,
            json: [
                "uuid": uuid, "name": name, "phone": String(format: "+21366%07d", index), "email": "m\(index)@example.dz", "neighbourhood": "usto",
            ]
        )
        guard reply.status == .created else { throw HarnessError(reply: reply) }
        return uuid
    }

    /// The member's current card token.
    func cardToken(_ uuid: String) async throws -> String {
        let reply = try await send(.get, "/v1/members/\(uuid)/card", secret: ServerHarness.backendSecret)
        guard reply.status == .ok else { throw HarnessError(reply: reply) }
        let token = try reply.decoded(CardBody.self).token
        return token
    }

    /// A vendor activation with a fresh idempotency key.
    func activate(
        token: String? = nil,
        membershipID: String? = nil,
        months: Int = 1,
        amount: Int? = nil,
        secret: String = ServerHarness.vendorSecret,
        key: String = UUID().uuidString
    ) async throws -> Reply {
        // The wire itself: the sale's body as a counter sends it (card_token or membership_id).
        var body: [String: Any] = ["months": months, "amount_dzd": amount ?? 300 * months]
        if let token { body["card_token"] = token }
        if let membershipID { body["membership_id"] = membershipID }
        return try await send(.post, "/v1/activations", secret: secret, json: body, headers: [HTTPField.Name("Idempotency-Key")!: key])
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let reply: Reply
    var description: String { "\(reply.status): \(String(decoding: reply.body, as: UTF8.self))" }
}

/// A clock the test moves by hand.
final class TestClock: Sendable {
    private let value: Mutex<Int64>
    init(_ start: Int64) { value = Mutex(start) }
    var now: Int64 { value.withLock { $0 } }
    func advance(by seconds: Int64) { value.withLock { $0 += seconds } }
    /// The clock the services are given: this one, as the test moves it.
    var wallClock: WallClock { WallClock { [self] in now } }
}
