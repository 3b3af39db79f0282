import HTTPTypes
import Hummingbird
import Synchronization

/// Which methods each served path answers, from the router's own route list: a request for a path the API
/// serves with a method it does not is a 405 with `Allow`, not a 404 (RFC 9110 §15.5.6).
final class AllowedMethods: Sendable {
    private let routes = Mutex<[(segments: [Substring], methods: Set<String>)]>([])

    /// Takes the route list once every route is registered.
    func load(_ routes: [(path: String, method: HTTPRequest.Method)]) {
        var byPath: [String: Set<String>] = [:]
        for route in routes {
            byPath[route.path, default: []].insert(route.method.rawValue)
            // The router answers HEAD wherever it answers GET.
            if route.method == .get { byPath[route.path, default: []].insert(HTTPRequest.Method.head.rawValue) }
        }
        self.routes.withLock { $0 = byPath.map { (Self.segments($0.key), $0.value) } }
    }

    /// The methods served on `path`, sorted; empty when the API serves no such path.
    func methods(for path: String) -> [String] {
        let requested = Self.segments(path)
        let matching = routes.withLock { routes in
            routes.filter { route in
                route.segments.count == requested.count
                    && zip(route.segments, requested).allSatisfy { pattern, segment in
                        pattern.hasPrefix("{") || pattern.hasPrefix(":") || pattern == segment
                    }
            }
        }
        return matching.reduce(into: Set<String>()) { $0.formUnion($1.methods) }.sorted()
    }

    private static func segments(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }
}
