import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP exchange with the service as a client lives it: an answer, or what went wrong on the way.
struct Exchange {
    /// The status, when an answer came.
    var status: Int?
    var body: Data
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

/// The clients' HTTP: a session of its own (no connection kept across a restart is trusted), a short timeout.
struct SoakClient: Sendable {
    let base: String
    let timeout: TimeInterval
    private let session: URLSession

    init(port: Int, timeout: TimeInterval = 2) {
        base = "http://127.0.0.1:\(port)"
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpMaximumConnectionsPerHost = 64
        session = URLSession(configuration: configuration)
    }

    func send(_ method: String, _ path: String, secret: String, json: [String: Any]? = nil, headers: [String: String] = [:]) async -> Exchange {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        request.timeoutInterval = timeout
        request.setValue("Bearer \(secret)", forHTTPHeaderField: "Authorization")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let json {
            request.httpBody = try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        do {
            let (data, response) = try await session.data(for: request)
            return Exchange(status: (response as? HTTPURLResponse)?.statusCode, body: data)
        } catch let error as URLError {
            return Exchange(body: Data(), failure: error.code == .timedOut ? "timed out" : "no answer (\(error.code.rawValue))")
        } catch {
            return Exchange(body: Data(), failure: "\(error)")
        }
    }

    /// A request that must succeed (setting a run up, reading the ledger at the end): the body decoded. An answer
    /// lost (an instance or its database still starting after a fault) is asked again for up to 60 s.
    func required<Body: Decodable>(
        _ method: String,
        _ path: String,
        secret: String,
        json: [String: Any]? = nil,
        as type: Body.Type
    ) async throws -> Body {
        var exchange = await send(method, path, secret: secret, json: json)
        let begun = ContinuousClock.now
        while exchange.outcome == .unknown, begun.duration(to: .now) < .seconds(60) {
            try await Task.sleep(for: .milliseconds(250))
            exchange = await send(method, path, secret: secret, json: json)
        }
        guard exchange.outcome == .ok, let body = try? JSONDecoder().decode(type, from: exchange.body) else {
            throw SoakError("\(method) \(path) answered \(exchange.summary): \(String(decoding: exchange.body.prefix(300), as: UTF8.self))")
        }
        return body
    }
}
