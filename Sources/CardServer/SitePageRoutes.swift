import ConsoleAssets
import CounterAssets
import Foundation
import HTTPTypes
import Hummingbird

/// A site built into the binary, served under `base` (the web counter at `/counter/`, the console at
/// `/console/`): no credentials (the counter asks for the vendor secret itself; the console's API needs its
/// session, its files do not). Each answer carries a strict Content-Security-Policy (scripts and everything else
/// from this origin only, no inline script; WebAssembly for the counter's QR decoder), an ETag for revalidation,
/// and gzip when the client takes it.
struct SitePageRoutes {
    let base: String
    let files: [String: WebFile]

    /// The web counter's.
    static let counter = SitePageRoutes(base: "/counter", files: CounterAssets.webFiles)
    /// The console's.
    static let console = SitePageRoutes(base: "/console", files: ConsoleAssets.webFiles)

    /// Everything from this origin, nothing inline, nothing framed.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' blob: data:; "
        + "media-src 'self' blob: mediastream:; connect-src 'self'; worker-src 'self'; manifest-src 'self'; "
        + "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let permissionsPolicy = HTTPField.Name("Permissions-Policy")!

    func register(on router: Router<ServerRequestContext>) {
        // One route for `/counter` and `/counter/`: the router does not tell them apart; the handler does.
        router.on("\(base)", method: .get, use: index)
        router.on("\(base)/{file}", method: .get, use: file)
    }

    /// The page at `base/`; `base` is sent there, so that the page's relative addresses resolve under it.
    @Sendable func index(_ request: Request, context: ServerRequestContext) async throws -> Response {
        guard request.uri.path.hasSuffix("/") else {
            return Response(status: .movedPermanently, headers: [.location: "\(base)/", .cacheControl: "no-cache"])
        }
        return answer(files["index.html"]!, request)
    }

    @Sendable func file(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let name = try context.parameters.require("file")
        guard let file = files[name] else {
            throw APIError(.notFound, code: "not_found", "\(base)/ has no file \(String(name.prefix(64)))")
        }
        return answer(file, request)
    }

    func answer(_ file: WebFile, _ request: Request) -> Response {
        let gzipped = file.gzipped.flatMap { Self.acceptsGzip(request.headers[.acceptEncoding]) ? $0 : nil }
        let etag = gzipped == nil ? file.etag : file.gzipEtag
        var headers: HTTPFields = [
            .contentType: file.contentType,
            .eTag: etag,
            // Revalidated on every visit online (a 304 is a few bytes); the service worker serves it offline.
            .cacheControl: "no-cache",
            .contentSecurityPolicy: Self.contentSecurityPolicy,
            .xContentTypeOptions: "nosniff",
            Self.referrerPolicy: "no-referrer",
            Self.permissionsPolicy: "camera=(self), microphone=(), geolocation=()",
            .vary: "Accept-Encoding",
        ]
        if let tags = request.headers[.ifNoneMatch], Self.ifNoneMatch(tags, matches: etag) {
            return Response(status: .notModified, headers: headers)
        }
        if let gzipped {
            headers[.contentEncoding] = "gzip"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: gzipped)))
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: file.bytes)))
    }

    /// Whether an If-None-Match value matches the representation tagged `etag` (RFC 9110 §13.1.2): `*` matches
    /// any, and each listed tag is compared weakly (a `W/` prefix on either side does not matter).
    static func ifNoneMatch(_ value: String, matches etag: String) -> Bool {
        func opaque<Tag: StringProtocol>(_ tag: Tag) -> String {
            let text = tag.trimmingCharacters(in: .whitespaces)
            return text.hasPrefix("W/") ? String(text.dropFirst(2)) : text
        }
        if value.trimmingCharacters(in: .whitespaces) == "*" { return true }
        return value.split(separator: ",").contains { opaque($0) == opaque(etag) }
    }

    /// Whether an Accept-Encoding value takes gzip (listed, and not with q=0).
    static func acceptsGzip(_ value: String?) -> Bool {
        guard let value else { return false }
        return value.split(separator: ",").contains { item in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard parts.first == "gzip" || parts.first == "*" else { return false }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return quality > 0
        }
    }
}
