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

extension CounterClient {
    /// What the service said to a sale.
    public enum SaleAnswer: Sendable, Equatable {
        /// Recorded (or recorded before, and replayed): the member's new coverage end.
        case recorded(coverageEnd: String)
        /// Refused for good: the same sale sent again would be refused again.
        case refused(String)
    }

    /// Sends a cash sale under its idempotency key. Throws when the answer is not known (no connection, a
    /// timeout, a 5xx, a sale still in flight): the same key may and must be sent again.
    public func sell(membershipID: String, months: Int, amountDZD: Int, key: String) async throws -> SaleAnswer {
        var request = URLRequest(url: server.appendingPathComponent("v1/activations"), timeoutInterval: 15)
        request.httpMethod = "POST"
        request.setValue("Bearer \(secret)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(key, forHTTPHeaderField: "Idempotency-Key")
        request.httpBody = try JSONSerialization.data(withJSONObject: ["membership_id": membershipID, "months": months, "amount_dzd": amountDZD])
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let body = (try? JSONSerialization.jsonObject(with: data.prefix(65_536))) as? [String: Any]
        switch status {
        case 201:
            return .recorded(coverageEnd: body?["coverage_end"] as? String ?? "")
        case 408, 409, 429, 500...599:
            throw CounterClientError("the service answered \(status); the sale will be sent again under the same key")
        case 401, 403:
            throw CounterClientError("the service refused the vendor secret (\(status)); the sale stays pending")
        default:
            let message = (body?["error"] as? [String: Any])?["message"] as? String ?? "status \(status)"
            let fields = ((body?["error"] as? [String: Any])?["fields"] as? [String: String])?.map { "\($0.key): \($0.value)" }.sorted() ?? []
            return .refused(([message] + fields).joined(separator: "; "))
        }
    }
}

/// A sync that could not reach or use the service.
public struct CounterClientError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
