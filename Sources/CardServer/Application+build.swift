public import CardServices
import Console
import CoreMetrics
import Foundation
public import Hummingbird
import HummingbirdCore
public import Logging
public import Membership
public import Prometheus
public import ServiceLifecycle

/// Where and how the HTTP server listens.
public struct ServerConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// Timeouts and the connection cap.
    public var limits: ConnectionLimits
    /// TLS terminated here, or nil for plain HTTP (on loopback, or behind a reverse proxy that terminates it).
    public var tls: ServerTLS?
    /// The address phones reach the service at, for enrolment links (behind a reverse proxy, its https
    /// address); nil: the address each request came to.
    public var publicURL: String?
    /// The reverse proxies whose `Forwarded` and `X-Forwarded-For` headers name the client (none by default).
    public var trustedProxies: TrustedProxies = .none

    public init(host: String = "127.0.0.1", port: Int = 8080, limits: ConnectionLimits = ConnectionLimits(), tls: ServerTLS? = nil) {
        self.host = host
        self.port = port
        self.limits = limits
        self.tls = tls
    }

    /// The address clients reach the service at.
    public var baseURL: String { "\(tls == nil ? "http" : "https")://\(host.contains(":") ? "[\(host)]" : host):\(port)" }
}

/// Metrics: swift-metrics backed by a Prometheus registry that `GET /metrics` renders.
public enum ServerMetrics {
    /// Makes a registry and installs it as the process's metrics backend. swift-metrics allows this once per
    /// process: the program that serves calls it once at start and hands the registry to ``buildApplication``.
    public static func bootstrap() -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }

    /// ``bootstrap()``, then `parts` recorded in it: their states and certificates' ends were read with the
    /// settings, before the metrics system existed.
    public static func bootstrap(recording parts: ServiceParts) -> PrometheusCollectorRegistry {
        let registry = bootstrap()
        parts.recordMetrics()
        return registry
    }
}

/// The router: every route of the API, behind error rendering, request metrics and authentication. Its
/// `routes` list what it serves (a test holds them to the OpenAPI document).
public func buildRouter(
    cards: CardService,
    ledger: any MembershipStore,
    metrics: PrometheusCollectorRegistry,
    wallet: WalletService? = nil,
    googleWallet: GoogleWalletService? = nil,
    publicURL: String? = nil,
    secureCookies: Bool = false,
    trustedProxies: TrustedProxies = .none,
    listeningURL: String = ServerConfiguration().baseURL,
    parts: ServiceParts = ServiceParts(),
    goLive: (@Sendable () async -> GoLiveReport)? = nil,
    afterChange: (@Sendable () -> Void)? = nil,
    checkouts: (gateway: any CheckoutGateway, checkAfter: Int64)? = nil
) -> Router<ServerRequestContext> {
    // HEAD is answered on every GET route, as GET with no body (RFC 9110 §9.3.2).
    let router = Router(context: ServerRequestContext.self, options: .autoGenerateHeadEndpoints)
    // First: every limit, audit entry and link after it sees the real client's address.
    if !trustedProxies.isEmpty { router.add(middleware: ClientAddressMiddleware(trusted: trustedProxies)) }
    let links = LinkBase(publicURL: publicURL, listeningURL: listeningURL)
    // Metrics outermost: they count the answer actually sent, errors rendered by ErrorMiddleware included.
    router.add(middleware: RequestMetrics())
    let allowedMethods = AllowedMethods()
    router.add(middleware: ErrorMiddleware(allowedMethods: allowedMethods))
    let credentialCache = CredentialCache()
    let store = ledger
    // A revocation made by any instance reaches this one's cache as soon as the database announces it.
    store.onCredentialChange { hash in
        guard let hash else { return credentialCache.forgetAll() }
        credentialCache.forget(secretHash: hash)
    }
    // The published development secrets open nothing on a service that is not in development mode.
    let refused = cards.keyRing.development ? [] : DevelopmentSecrets.hashes
    router.add(middleware: Authenticator(store: store, cache: credentialCache, now: cards.clock, refusing: refused))
    if let afterChange { router.add(middleware: ChangeNotifier(changed: afterChange)) }
    let service = ServiceRoutes(cards: cards, metrics: metrics, store: store, parts: parts, ping: { try await store.ping() })
    router.on("/health", method: .get, use: service.health)
    router.on("/metrics", method: .get, use: service.prometheus)
    let changes = MemberChangeService(ledger: store, clock: cards.clock)
    MemberRoutes(cards: cards, changes: changes, store: store).register(on: router)
    ActivationRoutes(sales: ActivationService(ledger: store, cards: cards), changes: changes, store: store).register(on: router)
    ScanRoutes(cards: cards, store: store).register(on: router)
    PaymentRoutes(
        payments: checkouts.map { PaymentService(store: store, cards: cards, gateway: $0.gateway, checkAfter: $0.checkAfter) },
        store: store
    )
    .register(on: router)
    service.register(on: router)
    PlaceRoutes().register(on: router)
    SitePageRoutes.counter.register(on: router)
    SitePageRoutes.console.register(on: router)
    ConsoleRoutes(
        panels: ConsoleService(store: store, texts: ConsoleRoutes.texts, clock: cards.clock),
        signIn: ConsoleSignIn(store: store, now: cards.clock),
        cache: credentialCache,
        secureCookies: secureCookies,
        links: links,
        goLive: goLive
    )
    .register(on: router)
    ShopAccountRoutes(accounts: ShopAccountService(store: store, now: cards.clock)).register(on: router)
    CredentialRoutes(credentials: CredentialService(store: store, now: cards.clock), cache: credentialCache, links: links).register(
        on: router
    )
    WalletRoutes(
        wallet: wallet,
        google: googleWallet,
        parts: parts,
        now: cards.clock,
        store: store,
        base: wallet.flatMap { URL(string: $0.webServiceURL)?.path }.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
            ?? WalletRoutes.defaultBase
    )
    .register(on: router)
    allowedMethods.load(router.routes.map { ("\($0.path)", $0.method) })
    return router
}

/// The application: the router on a socket, ready to run as a service.
///
/// `services` (a database pool) run in the application's own service group: they start before the server and
/// stop after it has drained. `beforeServerStarts` runs once they run and before the socket opens (check the
/// database, migrate, load demo data); if it throws, nothing is served and the error ends the application.
/// `onServerRunning` is told the port once the socket listens.
public func buildApplication(
    cards: CardService,
    ledger: any MembershipStore,
    metrics: PrometheusCollectorRegistry,
    configuration: ServerConfiguration,
    wallet: WalletService? = nil,
    googleWallet: GoogleWalletService? = nil,
    parts: ServiceParts = ServiceParts(),
    goLive: (@Sendable () async -> GoLiveReport)? = nil,
    afterChange: (@Sendable () -> Void)? = nil,
    checkouts: (gateway: any CheckoutGateway, checkAfter: Int64)? = nil,
    services: [any Service] = [],
    beforeServerStarts: (@Sendable () async throws -> Void)? = nil,
    onServerRunning: (@Sendable (_ port: Int) async -> Void)? = nil,
    logger: Logger = .server(label: "peez.server")
) -> some ApplicationProtocol {
    let (limits, tls) = (configuration.limits, configuration.tls)
    let registry = ConnectionRegistry(limits: limits, trustedProxies: configuration.trustedProxies)
    var application = Application(
        router: buildRouter(
            cards: cards,
            ledger: ledger,
            metrics: metrics,
            wallet: wallet,
            googleWallet: googleWallet,
            publicURL: configuration.publicURL,
            secureCookies: configuration.tls != nil || configuration.publicURL?.hasPrefix("https://") == true,
            trustedProxies: configuration.trustedProxies,
            listeningURL: configuration.baseURL,
            parts: parts,
            goLive: goLive,
            afterChange: afterChange,
            checkouts: checkouts
        ),
        server: HTTPServerBuilder { responder in
            let http = DeadlineHTTP1Channel(base: HTTP1Channel(responder: responder), limits: limits, registry: registry)
            guard let tls else { return http }
            return ReloadingTLSChannel(base: http, tls: tls)
        },
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port),
            serverName: "peez",
            availableConnectionsDelegate: .maximum(limits.maxConnections + limits.refusalHeadroom, logger: logger)
        ),
        services: services,
        onServerRunning: { channel in await onServerRunning?(channel.localAddress?.port ?? configuration.port) },
        logger: logger
    )
    if let beforeServerStarts { application.beforeServerStarts(perform: beforeServerStarts) }
    return application
}
