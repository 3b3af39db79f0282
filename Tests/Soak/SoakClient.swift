import Foundation
import TestSupport

/// One HTTP exchange with the service as a client lives it: an answer, or what went wrong on the way.
struct Exchange {
    /// The status, when an answer came.
    var status: Int?
    var body: Data
    /// The answer's header fields, names lowercased.
    var fields: [String: String] = [:]
    /// What went wrong when no answer came ("timed out", "connection refused").
    var failure: String?

    /// What the answer means for an operation that changes the ledger: a 2xx did it; a 4xx (but a 409, a request
    /// with the same key still under way) did nothing; anything else may have done it.
    var outcome: Outcome {
        guard let status else { return .unknown }
        if (200..<300).contains(status) { return .ok }
        if (400..<500).contains(status) && status != 409 && status != 408 { return .refused }
        return .unknown
    }

    /// How the history shows the attempt.
    var summary: String { status.map(String.init) ?? failure ?? "no answer" }
}

/// The clients' HTTP/1.1, on loopback sockets of its own: one connection a request (`Connection: close`), on a
/// thread of its own, with a deadline for the whole exchange. Not URLSession: on Linux its task bookkeeping
/// crashed a long run (a timed-out task cancelled after it had left the registry, a fatal error in
/// FoundationNetworking), and a harness that dies under faults proves nothing.
struct SoakClient: Sendable {
    let port: Int
    let timeout: TimeInterval

    init(port: Int, timeout: TimeInterval = 2) {
        self.port = port
        self.timeout = timeout
    }

    func send(_ method: String, _ path: String, secret: String, json: [String: Any]? = nil, headers: [String: String] = [:]) async -> Exchange {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if !secret.isEmpty { head += "Authorization: Bearer \(secret)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let body = json.flatMap { try? JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]) } ?? Data()
        if json != nil { head += "Content-Type: application/json\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        let request = Array(head.utf8) + Array(body)
        let (port, timeout) = (port, timeout)
        return await withCheckedContinuation { (answer: CheckedContinuation<Exchange, Never>) in
            Thread { answer.resume(returning: Self.exchange(request, port: port, timeout: timeout)) }.start()
        }
    }

    /// Sends `request` and reads the answer until the server closes the connection, or fails at the deadline.
    private static func exchange(_ request: [UInt8], port: Int, timeout: TimeInterval) -> Exchange {
        let deadline = Date().addingTimeInterval(timeout)
        let socket = Loopback.tcpSocket()
        defer { close(socket) }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard Loopback.withAddress(port: port, { connect(socket, $0, $1) }) == 0 else {
            return Exchange(body: Data(), failure: "no answer (\(String(cString: strerror(errno))))")
        }
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return Exchange(body: Data(), failure: "no answer (sending: \(String(cString: strerror(errno))))") }
            sent += count
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            guard Date() < deadline else { return Exchange(body: Data(), failure: "timed out") }
            let count = recv(socket, &buffer, buffer.count, 0)
            if count == 0 { break }
            guard count > 0 else {
                return Exchange(
                    body: Data(),
                    failure: errno == EAGAIN || errno == EWOULDBLOCK ? "timed out" : "no answer (\(String(cString: strerror(errno))))"
                )
            }
            received += buffer[0..<count]
            // A server that keeps the connection open (Connection: close notwithstanding) has answered once its
            // body's length has come.
            let answer = parse(received)
            if answer.status != nil, let length = answer.fields["content-length"].flatMap(Int.init), answer.body.count == length { return answer }
        }
        return parse(received)
    }

    /// The status and body of an HTTP/1.1 answer read whole (a body by Content-Length, or chunked).
    static func parse(_ bytes: [UInt8]) -> Exchange {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else {
            return Exchange(body: Data(), failure: bytes.isEmpty ? "no answer (closed)" : "no answer (cut in its head)")
        }
        let head = String(decoding: bytes[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { return Exchange(body: Data(), failure: "no answer (not HTTP)") }
        let fields = Dictionary(
            head.dropFirst().compactMap { line -> (String, String)? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            },
            uniquingKeysWith: { first, _ in first }
        )
        var body = Array(bytes[(end + 4)...])
        if fields["transfer-encoding"]?.lowercased() == "chunked" {
            guard let decoded = dechunk(body) else { return Exchange(body: Data(), failure: "no answer (cut in its body)") }
            body = decoded
        } else if let length = fields["content-length"].flatMap(Int.init) {
            guard body.count >= length else { return Exchange(body: Data(), failure: "no answer (cut in its body)") }
            body = Array(body.prefix(length))
        }
        return Exchange(status: status, body: Data(body), fields: fields)
    }

    /// A chunked body's bytes, or nil if it was cut before its last chunk.
    private static func dechunk(_ bytes: [UInt8]) -> [UInt8]? {
        var (out, index) = ([UInt8](), 0)
        while true {
            guard let lineEnd = (index..<max(index, bytes.count - 1)).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 }) else { return nil }
            let sizeText = String(decoding: bytes[index..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { return nil }
            if size == 0 { return out }
            let start = lineEnd + 2
            guard start + size + 2 <= bytes.count else { return nil }
            out += bytes[start..<start + size]
            index = start + size + 2
        }
    }

    /// A request that must succeed (setting a run up, reading the ledger at the end): the body decoded. An answer
    /// lost (an instance or its database still starting after a fault) is asked again for up to 60 s.
    func required<Body: Decodable>(
        _ method: String,
        _ path: String,
        secret: String,
        json: [String: Any]? = nil,
        headers: [String: String] = [:],
        as type: Body.Type
    ) async throws -> Body {
        try await requiredExchange(method, path, secret: secret, json: json, headers: headers, as: type).body
    }

    /// ``required(_:_:secret:json:headers:as:)`` with the answer's header fields.
    func requiredExchange<Body: Decodable>(
        _ method: String,
        _ path: String,
        secret: String,
        json: [String: Any]? = nil,
        headers: [String: String] = [:],
        as type: Body.Type
    ) async throws -> (body: Body, fields: [String: String]) {
        var exchange = await send(method, path, secret: secret, json: json, headers: headers)
        let begun = ContinuousClock.now
        while exchange.outcome == .unknown, begun.duration(to: .now) < .seconds(60) {
            try await Task.sleep(for: .milliseconds(250))
            exchange = await send(method, path, secret: secret, json: json, headers: headers)
        }
        guard exchange.outcome == .ok, let body = try? JSONDecoder().decode(type, from: exchange.body) else {
            throw SoakError("\(method) \(path) answered \(exchange.summary): \(String(decoding: exchange.body.prefix(300), as: UTF8.self))")
        }
        return (body, exchange.fields)
    }
}
