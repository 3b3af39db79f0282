import Hummingbird

/// Calls `changed` after every request that may have changed the ledger and succeeded (a 2xx answer to a
/// POST, PATCH or DELETE), so work that follows changes (pushing Wallet pass updates) starts at once.
struct ChangeNotifier: RouterMiddleware {
    typealias Context = ServerRequestContext
    let changed: @Sendable () -> Void

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        if [.post, .patch, .delete].contains(request.method), (200..<300).contains(response.status.code) { changed() }
        return response
    }
}
