import CardCrypto
import Foundation
public import Hummingbird
import Membership
import Synchronization

/// Resolves `Authorization: Bearer <secret>` to a stored credential. Secrets are compared by their SHA-256 only
/// (a lookup by hash: nothing about the secret leaks through timing). A credential read from the store is kept in
/// memory for ``revocationDelay`` at most, and forgotten at once when the database announces its revocation
/// (PostgreSQL's NOTIFY, heard by every instance within milliseconds of the commit): so a revocation made
/// through any instance is refused everywhere as soon as it is heard, within ``revocationDelay`` if an
/// instance's listener is down, and the hot paths still read the store once per credential and interval. Every route checks the role it needs (``ServerRequestContext/require(_:)``).
public struct Authenticator: RouterMiddleware {
    public typealias Context = ServerRequestContext

    let store: any CredentialStore
    let cache: CredentialCache
    let now: WallClock
    /// Secret hashes refused whatever the store says: the published development secrets, outside development.
    let refusedHashes: Set<String>

    /// How long a credential read from the store is trusted before it is read again: the longest a revocation
    /// made elsewhere takes to be refused here.
    public static let revocationDelay: Duration = .seconds(5)

    init(store: any CredentialStore, cache: CredentialCache, now: WallClock, refusing refusedHashes: Set<String> = []) {
        self.store = store
        self.cache = cache
        self.now = now
        self.refusedHashes = refusedHashes
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        if let header = request.headers[.authorization] {
            // The scheme name is case-insensitive (RFC 9110 §11.1); the header is bounded before any work.
            guard header.utf8.count <= 512 else { throw APIError.unauthenticated("The Authorization header is too long.") }
            if header.prefix(10).lowercased() == "applepass " {
                // Wallet's own scheme: checked by the Wallet web service against the pass it names.
                context.passToken = String(header.dropFirst(10).trimmingOptionalWhitespace)
                return try await next(request, context)
            }
            guard header.prefix(7).lowercased() == "bearer " else {
                throw APIError.unauthenticated("The Authorization header must be 'Bearer <secret>'.")
            }
            let hash = APISecret.hash(String(header.dropFirst(7).trimmingOptionalWhitespace), sha256: SHA256.hash)
            guard !refusedHashes.contains(hash), let credential = try await lookup(hash) else {
                throw APIError.unauthenticated("The API secret is not valid.")
            }
            let time = now()
            if let refusal = credential.refusal(now: time) {
                context.refusedCredential = (credential, refusal)
            } else {
                context.credential = credential
                noteUse(credential, hash: hash, at: time)
            }
        }
        return try await next(request, context)
    }

    private func lookup(_ hash: String) async throws -> APICredential? {
        let now = ContinuousClock.now
        if let cached = cache.entries.withLock({ $0[hash] }), cached.expiry > now { return cached.credential }
        guard let credential = try await store.credential(secretHash: hash) else { return nil }
        cache.entries.withLock { entries in
            if entries.count >= 10_000 { entries.removeAll() }
            entries[hash] = (credential, now + Self.revocationDelay)
        }
        return credential
    }

    /// Records the hour of a use once an hour a credential (a coarse trail), in the background: a request never
    /// waits for it, and a failure only leaves the trail coarser.
    private func noteUse(_ credential: APICredential, hash: String, at time: Int64) {
        let hour = time - time % 3600
        guard (credential.lastUsedAt ?? .min) < hour else { return }
        cache.entries.withLock { entries in
            if var entry = entries[hash] {
                entry.credential.lastUsedAt = hour
                entries[hash] = entry
            }
        }
        let store = store
        Task { try? await store.noteCredentialUse(id: credential.id, hour: hour) }
    }
}

/// Known credentials by secret hash, with an expiry (unknown secrets are never cached).
final class CredentialCache: Sendable {
    let entries = Mutex<[String: (credential: APICredential, expiry: ContinuousClock.Instant)]>([:])

    /// Forgets every credential: this instance reads each again from the store at its next use (after a
    /// revocation or rotation made here, refused here at once).
    func forgetAll() { entries.withLock { $0.removeAll() } }

    /// Forgets the credential of a secret hash: revoked or given an end elsewhere.
    func forget(secretHash: String) { _ = entries.withLock { $0.removeValue(forKey: secretHash) } }
}
