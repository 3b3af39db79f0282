import Hummingbird

/// Where the links the service hands out point (enrolment links for phones, console sign-in links).
///
/// The configured public address (`--public-url`) whenever there is one. Without it, a request straight to the
/// service gets the address it came to (``CredentialRoutes/origin(of:)``: a trial on a LAN reaches it so), and a
/// request through a trusted reverse proxy gets the address the service listens at: never its `Host` header,
/// which the proxy's client chose (`peez serve` warns when proxies are trusted and no public address is set).
struct LinkBase: Sendable {
    /// `--public-url`, if set.
    let publicURL: String?
    /// The address the service listens at (``ServerConfiguration/baseURL``).
    let listeningURL: String

    /// The base of a link made for `request`.
    func url(for request: Request, context: ServerRequestContext) -> String {
        if let publicURL { return publicURL }
        return context.throughTrustedProxy ? listeningURL : CredentialRoutes.origin(of: request)
    }
}
