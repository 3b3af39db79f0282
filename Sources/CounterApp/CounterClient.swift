import AsyncHTTPClient
import CardWire
public import Foundation
public import Membership
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
public import PeezAPI

/// Talks to the card service for the counter: the signed bundle, and sales. The vendor secret travels with
/// every request, so only `https://` is used, except to this machine (loopback), where nothing crosses a
/// network. The service's certificate is checked against the system's roots, or against only the CA file
/// given at enrolment; redirects are not followed (they could carry the secret elsewhere).
public struct CounterClient: Sendable {
    public let server: URL
    private let secret: String
    private let certificateAuthority: String?

    /// Refuses a server address that would send the secret in the clear, and a CA file that holds no certificate.
    public init(server text: String, secret: String, certificateAuthority: String? = nil) throws {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            throw CounterClientError("'\(text)' is not a server address like https://cards.peez.dz")
        }
        guard scheme == "https" || (scheme == "http" && Self.isLoopback(host)) else {
            throw CounterClientError("\(text) would send the vendor secret unencrypted: use https:// (plain http:// is allowed only to this machine)")
        }
        if let certificateAuthority {
            do {
                guard try !NIOSSLCertificate.fromPEMFile(certificateAuthority).isEmpty else { throw CounterClientError("no certificate in it") }
            } catch {
                throw CounterClientError("cannot use the CA file \(certificateAuthority): \(error); it must hold PEM certificates")
            }
        }
        server = url
        self.secret = secret
        self.certificateAuthority = certificateAuthority
    }

    /// `localhost`, `::1`, or an IPv4 address in 127.0.0.0/8 (a name that merely begins with `127.` is not).
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" || bare == "::1" { return true }
        var address = in_addr()
        return inet_pton(AF_INET, bare, &address) == 1 && UInt32(bigEndian: address.s_addr) >> 24 == 127
    }

    /// The signed bundle: the whole revocation list, or with `since` the changes after that version; the whole
    /// renewal list, or with `renewalsAfter` (the service time of the bundle held) the renewals since.
    public func fetchBundle(since: Int64?, renewalsAfter: Int64? = nil) async throws -> [UInt8] {
        var components = URLComponents(url: server.appendingPathComponent("v1/counter/bundle"), resolvingAgainstBaseURL: false)!
        var query: [URLQueryItem] = []
        if let since { query.append(URLQueryItem(name: "since", value: String(since))) }
        if let renewalsAfter { query.append(URLQueryItem(name: "renewals_after", value: String(renewalsAfter))) }
        if !query.isEmpty { components.queryItems = query }
        var request = HTTPClientRequest(url: components.url!.absoluteString)
        request.headers.add(name: "Accept", value: "application/cose")
        let (status, body) = try await send(request, timeout: .seconds(30), maxBytes: CounterBundle.maxSize)
        switch status {
        case 200:
            return body
        default:
            throw CounterClientError(.answered(status: status, body: body))
        }
    }

    /// Sends one request with the vendor secret and reads at most `maxBytes` of the answer.
    func send(_ request: HTTPClientRequest, timeout: TimeAmount, maxBytes: Int) async throws -> (status: Int, body: [UInt8]) {
        var request = request
        if !secret.isEmpty { request.headers.add(name: "Authorization", value: "Bearer \(secret)") }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        if let certificateAuthority { tls.trustRoots = .file(certificateAuthority) }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls,
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(10), read: timeout)
        )
        // An untrusted certificate or a refused connection is an answer now; a sale has its own retries.
        configuration.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let response = try await client.execute(request, timeout: timeout)
            let body = try await response.body.collect(upTo: maxBytes)
            try await client.shutdown()
            return (Int(response.status.code), Array(body.readableBytesView))
        } catch {
            try? await client.shutdown()
            throw CounterClientError(describing: error, server: server, certificateAuthority: certificateAuthority)
        }
    }
}

extension CounterClient {
    /// Exchanges a one-time enrolment code for this counter's own vendor credential; returns its secret (to keep in
    /// the counter's folder, never to show). Throws a ``CounterClientError`` naming a used, expired or unknown code.
    public static func enrol(server: String, code: String, label: String, certificateAuthority: String? = nil) async throws -> String {
        let client = try CounterClient(server: server, secret: "", certificateAuthority: certificateAuthority)
        var request = HTTPClientRequest(url: client.server.appendingPathComponent("v1/enrolments").absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(EnrolRequest(code: code, label: label))))
        let (status, data) = try await client.send(request, timeout: .seconds(30), maxBytes: 65_536)
        guard status == 201 else { throw CounterClientError(.answered(status: status, body: data)) }
        do {
            return try JSONDecoder().decode(IssuedCredentialBody.self, from: Data(data)).secret
        } catch {
            throw CounterClientError(CounterProblem("problem.answer_unreadable", detail: "the enrolment's answer has no secret: \(error)"))
        }
    }
}

extension CounterClient {
    /// What the service said to a sale.
    public enum SaleAnswer: Sendable, Equatable {
        /// Recorded (or recorded before, and replayed): the member's new coverage end.
        case recorded(coverageEnd: String)
        /// Refused for good: the same sale sent again would be refused again.
        case refused(CounterProblem)
    }

    /// Sends a cash sale under its idempotency key. Throws when the answer is not known (no connection, a
    /// timeout, a 5xx, a sale still in flight): the same key may and must be sent again.
    public func sell(membershipID: String, months: Int, amountDZD: Int, key: String) async throws -> SaleAnswer {
        var request = HTTPClientRequest(url: server.appendingPathComponent("v1/activations").absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Idempotency-Key", value: key)
        request.body = .bytes(
            ByteBuffer(bytes: try APIJSON.encode(ActivationRequest(membership_id: membershipID, months: months, amount_dzd: amountDZD)))
        )
        let (status, data) = try await send(request, timeout: .seconds(15), maxBytes: 65_536)
        switch status {
        case 201:
            // An answer that does not say the coverage end is not taken as a sale: the key is sent again, which replays it.
            let recorded: ActivationBody
            do {
                recorded = try JSONDecoder().decode(ActivationBody.self, from: Data(data))
            } catch {
                throw CounterClientError(
                    CounterProblem("problem.answer_unreadable", detail: "the service answered 201 with an unreadable answer: \(error)")
                )
            }
            guard !recorded.coverage_end.isEmpty else {
                throw CounterClientError(
                    CounterProblem("problem.answer_unreadable", detail: "the service answered 201 but its answer does not say the new coverage end")
                )
            }
            return .recorded(coverageEnd: recorded.coverage_end)
        case 401, 403, 408, 409, 429, 500...599:
            let problem = CounterProblem.answered(status: status, body: data)
            // A device cut off is refused for good; otherwise the answer is not known (or the secret is to be
            // fixed): the same key is sent again later.
            if CounterProblem.deviceRefusals.contains(problem.key) { return .refused(problem) }
            throw CounterClientError(problem)
        default:
            return .refused(.answered(status: status, body: data))
        }
    }
}

extension CounterClient {
    /// The shop's own account as the service keeps it: what it owes PEEZ, today's takings, its last remittance.
    public func account() async throws -> ShopAccountBody {
        let request = HTTPClientRequest(url: server.appendingPathComponent("v1/counter/account").absoluteString)
        let (status, data) = try await send(request, timeout: .seconds(15), maxBytes: 65_536)
        guard status == 200 else { throw CounterClientError(CounterProblem.answered(status: status, body: data)) }
        do {
            return try JSONDecoder().decode(ShopAccountBody.self, from: Data(data))
        } catch {
            throw CounterClientError(CounterProblem("problem.answer_unreadable", detail: "the service's account is unreadable: \(error)"))
        }
    }

    /// Reports scan-log entries (at most 500). The service stores each once, so a report sent again after a
    /// lost answer is harmless. Its answer says how many were new to it, how many it had, and which it refused.
    public func reportScans(counterID: UUID, entries: [ScanLog.Entry]) async throws -> ScanReportAnswer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var request = HTTPClientRequest(url: server.appendingPathComponent("v1/counter/scans").absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try encoder.encode(ScanReport(counterID: counterID, entries: entries))))
        let (status, data) = try await send(request, timeout: .seconds(30), maxBytes: 256 * 1024)
        guard status == 200 else {
            throw CounterClientError(.answered(status: status, body: data))
        }
        do {
            return try JSONDecoder().decode(ScanReportAnswer.self, from: Data(data))
        } catch {
            throw CounterClientError(CounterProblem("problem.answer_unreadable", detail: "the scan report's answer: \(error)"))
        }
    }
}

/// A sync or a sale that could not reach or use the service: the ``problem`` the counter shows in the shop's
/// language, with the English detail as its ``description``.
public struct CounterClientError: Error, CustomStringConvertible {
    public let problem: CounterProblem
    public var description: String { problem.description }

    /// A problem of the counter's setting up (an address, a CA file), worded in English for the command line.
    public init(_ description: String) { problem = CounterProblem("problem.unexpected", detail: description) }

    public init(_ problem: CounterProblem) { self.problem = problem }

    /// Words a transport failure for a person at the counter: a certificate not trusted says what to do.
    init(describing error: any Error, server: URL, certificateAuthority: String?) {
        if let error = error as? CounterClientError {
            self = error
        } else if error is NIOSSLError || error is BoringSSLError {
            let trusted = certificateAuthority.map { "the CA file \($0)" } ?? "this system's root certificates"
            problem = CounterProblem(
                "problem.certificate",
                detail: "the TLS connection to \(server.absoluteString) failed: nothing this counter trusts (\(trusted)) vouches for "
                    + "its certificate, or the handshake broke (\(error)). If the service uses a private CA, enrol again with --ca-file"
            )
        } else if let error = error as? NIOTooManyBytesError {
            problem = CounterProblem(
                "problem.answer_unreadable",
                detail: "the service at \(server.absoluteString) sent more than \(error.maxBytes.map(String.init) ?? "the") bytes any answer needs"
            )
        } else {
            problem = CounterProblem("problem.unreachable", detail: "cannot reach the service at \(server.absoluteString): \(Self.reason(error))")
        }
    }

    /// A transport failure in one plain sentence's words: the system's ("Connection refused", "no such host
    /// cards.peez.dz"), not the client library's description of every address it tried.
    static func reason(_ error: any Error) -> String {
        if let error = error as? NIOConnectionError, let first = error.connectionErrors.first?.error ?? error.dnsAError ?? error.dnsAAAAError {
            return reason(first)
        }
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)) }
        if case .unknown(let host, _) = error as? SocketAddressError { return "no such host \(host)" }
        if let error = error as? SocketAddressError.UnknownHost { return "no such host \(error.host)" }
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout: return "no answer to the connection within 10 s"
            case .readTimeout, .deadlineExceeded: return "no answer in time"
            case .remoteConnectionClosed: return "the service closed the connection before answering"
            default: break
            }
        }
        return "\(error)"
    }
}
