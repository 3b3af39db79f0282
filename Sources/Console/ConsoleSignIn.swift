import CardCrypto
public import CardServices
public import Foundation
public import Membership
import PeezBasics

/// Signing in to the console without typing a secret: a one-time link (made at the command line or with an
/// admin credential) is exchanged once for a session, whose id only the browser's cookie holds. Codes and
/// session ids are 256-bit random values stored as SHA-256 hashes.
public struct ConsoleSignIn: Sendable {
    let store: any ConsoleSessionStore & AuditStore
    let now: WallClock

    /// How long a link can be used (once).
    public static let linkLifetime: Int64 = 600
    /// How long a session lasts.
    public static let sessionLifetime: Int64 = 8 * 3600

    public init(store: any ConsoleSessionStore & AuditStore, now: WallClock) {
        self.store = store
        self.now = now
    }

    /// A new one-time link for `actor` (the name the audit trail will show), at `baseURL` (the address
    /// browsers reach the service at). The code is in the fragment: browsers send it to no server.
    public func link(for actor: AuditActor, baseURL: String, by creator: AuditActor) async throws -> (url: String, expiresAt: Int64) {
        let code = Self.newSecret()
        let time = now()
        let grant = ConsoleGrant(
            hash: Self.hash(code),
            actor: actor.label,
            actorCredentialID: actor.credentialID,
            createdAt: time,
            expiresAt: time + Self.linkLifetime
        )
        try await store.saveConsoleLink(
            grant,
            audit: AuditEntry(
                at: time,
                actor: creator.label,
                actorCredentialID: creator.credentialID,
                address: creator.address,
                action: "console.link",
                target: actor.credentialID?.lowercasedText ?? "",
                detail: "one-time console link for \(actor.label)",
                values: [AuditValue("label", actor.label)]
            )
        )
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        return ("\(base)/console/#signin=\(code)", grant.expiresAt)
    }

    /// A session for the link's code, and the session id for the cookie; nil if the code is unknown, used
    /// or expired. The sign-in is written to the audit trail.
    public func signIn(code: String, address: String) async throws -> (id: String, grant: ConsoleGrant)? {
        guard code.utf8.count <= 100 else { return nil }
        let id = Self.newSecret()
        let time = now()
        let opened = try await store.openConsoleSession(
            linkHash: Self.hash(code),
            sessionHash: Self.hash(id),
            address: address,
            now: time,
            expiresAt: time + Self.sessionLifetime
        )
        return opened.map { (id, $0) }
    }

    /// The session a cookie's id names, if still good.
    public func session(id: String) async throws -> ConsoleGrant? {
        guard id.utf8.count <= 100 else { return nil }
        return try await store.consoleSession(hash: Self.hash(id), now: now())
    }

    /// Ends the session, in the audit trail as signed out from `address`.
    public func signOut(id: String, address: String) async throws {
        guard id.utf8.count <= 100 else { return }
        try await store.endConsoleSession(hash: Self.hash(id), now: now(), address: address)
    }

    static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<4).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64) { Array($0) } })
    }

    static func hash(_ secret: String) -> String { Hex.encode(SHA256.hash(Array(secret.utf8))) }
}

extension AuditActor {
    /// The console user a session acts for, from `address`.
    public init(console grant: ConsoleGrant, address: String) {
        self.init(label: grant.actor, credentialID: grant.actorCredentialID, address: address)
    }
}
