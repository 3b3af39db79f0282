import Hummingbird

/// Registers routes and remembers them as `METHOD /path` operations, so tests can hold the served API
/// against its OpenAPI document.
public final class RouteTable: @unchecked Sendable {
    private let router: Router<ServerRequestContext>
    /// Every registered operation, e.g. `GET /v1/members/{uuid}`.
    public private(set) var operations: [String] = []

    init(router: Router<ServerRequestContext>) {
        self.router = router
    }

    func add(_ method: HTTPRequest.Method, _ path: String,
             _ handler: @escaping @Sendable (Request, ServerRequestContext) async throws -> Response) {
        router.on(RouterPath(path), method: method, use: handler)
        operations.append("\(method.rawValue) \(path)")
    }
}
