import CardWire
public import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches the signed counter bundle from the card service. The vendor secret travels with every request,
/// so only `https://` is used, except to this machine (loopback), where nothing crosses a network.
public struct CounterClient: Sendable {
    public let server: URL
    private let secret: String

    /// Refuses a server address that would send the secret in the clear.
    public init(server text: String, secret: String) throws {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            throw CounterClientError("'\(text)' is not a server address like https://cards.peez.dz")
        }
        guard scheme == "https" || (scheme == "http" && Self.isLoopback(host)) else {
            throw CounterClientError("\(text) would send the vendor secret unencrypted: use https:// (plain http:// is allowed only to this machine)")
        }
        server = url
        self.secret = secret
    }

    /// `localhost`, `::1`, or an IPv4 address in 127.0.0.0/8 (a name that merely begins with `127.` is not).
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" || bare == "::1" { return true }
        var address = in_addr()
        return inet_pton(AF_INET, bare, &address) == 1 && UInt32(bigEndian: address.s_addr) >> 24 == 127
    }

    /// The signed bundle: the whole revocation list, or with `since` the changes after that version.
    public func fetchBundle(since: Int64?) async throws -> [UInt8] {
        var components = URLComponents(url: server.appendingPathComponent("v1/counter/bundle"), resolvingAgainstBaseURL: false)!
        if let since { components.queryItems = [URLQueryItem(name: "since", value: String(since))] }
        var request = URLRequest(url: components.url!, timeoutInterval: 30)
        request.setValue("Bearer \(secret)", forHTTPHeaderField: "Authorization")
        request.setValue("application/cose", forHTTPHeaderField: "Accept")
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        switch status {
        case 200:
            guard data.count <= CounterBundle.maxSize else { throw CounterClientError("the service sent \(data.count) bytes, more than any bundle") }
            return Array(data)
        case 401, 403:
            throw CounterClientError("the service refused the vendor secret (\(status)); check PEEZ_VENDOR_SECRET")
        default:
            let message = (try? JSONSerialization.jsonObject(with: data.prefix(4096)) as? [String: Any]).flatMap { ($0["error"] as? [String: Any])?["message"] as? String }
            throw CounterClientError("the service answered \(status)\(message.map { ": \($0)" } ?? "")")
        }
    }
}

/// A sync that could not reach or use the service.
public struct CounterClientError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
