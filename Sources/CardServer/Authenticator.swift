import CardCrypto
import Foundation
public import Hummingbird
public import Membership
import Synchronization

/// Resolves `Authorization: Bearer <secret>` to a stored credential. Secrets are compared by their SHA-256 only;
/// known hashes are kept in memory for a minute so the hot read paths do not query the store for each request.
/// Every route still checks the role it needs (``ServerRequestContext/require(_:)``).
public struct Authenticator: RouterMiddleware {
    public typealias Context = ServerRequestContext

    let store: any MembershipStore
    let cache: CredentialCache

    public init(store: any MembershipStore) {
        self.store = store
        self.cache = CredentialCache()
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if let header = request.headers[.authorization] {
            // The scheme name is case-insensitive (RFC 9110 §11.1); the header is bounded before any work.
            guard header.utf8.count <= 512 else { throw APIError.unauthenticated("The Authorization header is too long.") }
            if header.prefix(10).lowercased() == "applepass " {
                // Wallet's own scheme: checked by the Wallet web service against the pass it names.
                context.passToken = String(header.dropFirst(10)).trimmingCharacters(in: .whitespaces)
                return try await next(request, context)
            }
            guard header.prefix(7).lowercased() == "bearer " else {
                throw APIError.unauthenticated("The Authorization header must be 'Bearer <secret>'.")
            }
            let hash = APISecret.hash(String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces), sha256: SHA256.hash)
            guard let credential = try await lookup(hash) else {
                throw APIError.unauthenticated("The API secret is not valid.")
            }
            context.credential = credential
        }
        return try await next(request, context)
    }

    private func lookup(_ hash: String) async throws -> APICredential? {
        let now = ContinuousClock.now
        if let cached = cache.entries.withLock({ $0[hash] }), cached.expiry > now { return cached.credential }
        guard let credential = try await store.credential(secretHash: hash) else { return nil }
        cache.entries.withLock { entries in
            if entries.count >= 10_000 { entries.removeAll() }
            entries[hash] = (credential, now + .seconds(60))
        }
        return credential
    }
}

/// Known credentials by secret hash, with an expiry (unknown secrets are never cached).
final class CredentialCache: Sendable {
    let entries = Mutex<[String: (credential: APICredential, expiry: ContinuousClock.Instant)]>([:])
}
