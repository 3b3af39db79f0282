public import Hummingbird
public import Membership

/// The request context: who is calling, once the bearer secret was checked.
public struct ServerRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The caller's credential; nil until ``Authenticator`` found one.
    public var credential: APICredential?
    /// A credential the secret names that is no longer accepted (revoked, or past its rotation's grace period),
    /// with why: every route refuses it as it refuses no secret, saying so (and a sale is kept as refused).
    public var refusedCredential: (credential: APICredential, refusal: CredentialRefusal)?
    /// The pass authentication token Wallet sent as `Authorization: ApplePass <token>`; only the Wallet web
    /// service's routes read it, and it is no credential for any other.
    public var passToken: String?
    /// The client's address (an IP, without its port), for per-client limits and the audit trail: the socket's
    /// peer, or, for a request from a trusted reverse proxy, the client its headers name (``ClientAddressMiddleware``).
    public internal(set) var clientAddress: String
    /// Whether the request came from a trusted reverse proxy: its `Host` header is then the client's to choose,
    /// and no link is made from it.
    public internal(set) var throughTrustedProxy = false

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.clientAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    /// Request bodies are small JSON documents: 16 KiB is plenty, and a bound for hostile clients.
    public var maxUploadSize: Int { 16 * 1024 }

    /// The caller's credential if its role is one of `roles`; otherwise a 401 or 403.
    func require(_ roles: Role...) throws(APIError) -> APICredential {
        guard let credential else {
            if let refused = refusedCredential { throw .refused(refused.credential, refused.refusal) }
            throw .unauthenticated("Send an API secret as 'Authorization: Bearer <secret>'.")
        }
        guard roles.contains(credential.role) else {
            throw .forbidden(
                "A \(credential.role.rawValue) credential may not do this; it needs: \(roles.map(\.rawValue).joined(separator: " or "))."
            )
        }
        return credential
    }
}
