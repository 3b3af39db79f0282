public import PeezServices
public import Hummingbird
public import Logging
import CoreMetrics
public import Prometheus
import Synchronization

/// Where and how the HTTP server listens.
public struct ServerConfiguration: Sendable {
    public var host: String
    public var port: Int

    public init(host: String = "127.0.0.1", port: Int = 8080) {
        self.host = host
        self.port = port
    }
}

/// The Prometheus registry behind swift-metrics, bootstrapped once per process.
public enum ServerMetrics {
    private static let state = Mutex<PrometheusCollectorRegistry?>(nil)

    /// The process's registry; the first call installs it as the metrics backend.
    public static var registry: PrometheusCollectorRegistry {
        state.withLock { registry in
            if let registry { return registry }
            let created = PrometheusCollectorRegistry()
            MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: created))
            registry = created
            return created
        }
    }
}

/// The router: every route of the API, behind error rendering, request metrics and authentication,
/// and the table of operations it serves.
public func buildRouter(cards: CardService) -> (router: Router<ServerRequestContext>, routes: RouteTable) {
    let router = Router(context: ServerRequestContext.self)
    router.add(middleware: ErrorMiddleware())
    router.add(middleware: MetricsMiddleware())
    router.add(middleware: Authenticator(store: cards.store))
    let routes = RouteTable(router: router)
    let service = ServiceRoutes(cards: cards, metrics: ServerMetrics.registry)
    routes.add(.get, "/health", service.health)
    routes.add(.get, "/metrics", service.prometheus)
    MemberRoutes(cards: cards).register(on: routes)
    ActivationRoutes(cards: cards).register(on: routes)
    service.register(on: routes)
    return (router, routes)
}

/// The application: the router on a socket, ready to run as a service.
public func buildApplication(cards: CardService, configuration: ServerConfiguration, logger: Logger = Logger(label: "peez.server"))
    -> some ApplicationProtocol
{
    Application(
        router: buildRouter(cards: cards).router,
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "peez"),
        logger: logger
    )
}
