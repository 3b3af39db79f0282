import HTTPTypes
import Hummingbird

/// Puts the client's real address in the request context (``ServerRequestContext/clientAddress``): for a request
/// from a trusted reverse proxy, the address its `Forwarded` or `X-Forwarded-For` header names, read by
/// ``ForwardedChain``; for a request from anyone else, the socket's peer, whatever headers it sent. First in the
/// router's chain, so the limits, the audit trail and the links all see one address.
struct ClientAddressMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    let trusted: TrustedProxies

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !trusted.isEmpty, let peer = IPAddress(context.clientAddress), trusted.contains(peer) else {
            return try await next(request, context)
        }
        var context = context
        let chain = ForwardedChain(forwarded: request.headers[values: .forwarded], xForwardedFor: request.headers[values: .xForwardedFor])
        context.clientAddress = chain.client(peer: peer, trusted: trusted).description
        context.throughTrustedProxy = true
        return try await next(request, context)
    }
}

extension HTTPField.Name {
    /// RFC 7239's header.
    static let forwarded = HTTPField.Name("Forwarded")!
    /// The header most proxies write instead.
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}
