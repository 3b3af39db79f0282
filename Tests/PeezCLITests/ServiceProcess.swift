import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A real `peez serve` process on a loopback port, for tests that stop it the hard way.
final class ServiceProcess: @unchecked Sendable {
    let process: ChildProcess
    let port: Int
    /// Where the process's standard error goes, to quote when it fails.
    private let errorLog = NSTemporaryDirectory() + "peez-serve-" + UUID().uuidString + ".log"
    /// The file the service writes once its socket listens (`--ready-file`).
    private let readyFile = NSTemporaryDirectory() + "peez-serve-" + UUID().uuidString + ".ready"

    /// How long a start may take before the test calls it hung: far beyond any start on a loaded machine (a
    /// start is signalled by the ready file, not guessed from a clock), it only keeps a hang from lasting.
    static let hangBound: Duration = .seconds(300)

    init(arguments: [String], port: Int, environment: [String: String] = [:]) throws {
        self.port = port
        process = try ChildProcess(
            PeezCommand.binary,
            ["serve", "--host", "127.0.0.1", "--port", String(port), "--ready-file", readyFile] + arguments,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
            standardError: .file(errorLog)
        )
    }

    /// The end of what the process wrote to standard error.
    var errorOutput: String {
        String((try? String(contentsOfFile: errorLog, encoding: .utf8))?.suffix(2_000) ?? "")
    }

    /// All the process wrote to standard error (a crash's message comes before a long backtrace).
    var wholeErrorOutput: String {
        (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? ""
    }

    /// Waits until the service says its socket listens (its ready file), failing with what it wrote to standard
    /// error if it exits first or is still not ready after ``hangBound``.
    func waitUntilReady() async throws {
        let start = ContinuousClock.now
        while !FileManager.default.fileExists(atPath: readyFile) {
            guard process.isRunning else { throw ServiceError("peez serve exited with status \(process.terminationStatus): \(errorOutput)") }
            guard ContinuousClock.now - start < Self.hangBound else {
                throw ServiceError("peez serve on port \(port) did not say it was ready within \(Self.hangBound); it wrote: \(errorOutput)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Sends `signal` and waits up to `seconds` for the process to end: its exit status and how long it took,
    /// or nil if it was still running (it is then killed).
    func stop(with signal: Int32 = SIGTERM, within seconds: Double) async -> (status: Int32, seconds: Double)? {
        let start = ContinuousClock.now
        process.signal(signal)
        while process.isRunning && ContinuousClock.now - start < .seconds(seconds) {
            try? await Task.sleep(for: .milliseconds(20))
        }
        guard !process.isRunning else {
            killHard()
            return nil
        }
        let elapsed = ContinuousClock.now - start
        return (process.terminationStatus, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// Kills the process with SIGKILL: no shutdown code runs.
    func killHard() {
        process.kill9()
    }

    /// A request and its answer on the wire: the status, the body as a dictionary (for tests of the wire itself, and
    /// bodies sent on purpose as no type would write them), its bytes and headers. Tests that read what an answer
    /// says take the typed ``request(_:_:secret:json:headers:as:)``. Given 30 s by default: a whole suite on two
    /// cores once left a 500-entry scan report unanswered after 10.
    func request(
        _ method: String,
        _ path: String,
        secret: String? = nil,
        json: [String: Any]? = nil,
        headers: [String: String] = [:],
        timeout: TimeInterval = 30
    ) async throws -> (status: Int, body: [String: Any], data: Data, headers: [AnyHashable: Any]) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.timeoutInterval = timeout
        if let secret { request.setValue("Bearer \(secret)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let json {
            request.httpBody = try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        // The wire itself: the answer as sent, for tests of the wire; others take the typed request.
        let body = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return (http.statusCode, body, data, http.allHeaderFields)
    }

    /// A request whose answer is read as the API's own type for it (PeezAPI): the body decoded, or nil when it is
    /// not that type (an error answer).
    func request<Body: Decodable>(
        _ method: String,
        _ path: String,
        secret: String? = nil,
        // The wire itself: bodies sent as a client writes them, some on purpose as no type would.
        json: [String: Any]? = nil,
        headers: [String: String] = [:],
        as type: Body.Type
    ) async throws -> (status: Int, body: Body?) {
        let reply = try await request(method, path, secret: secret, json: json, headers: headers)
        return (reply.status, try? JSONDecoder().decode(type, from: reply.data))
    }

    /// The console session cookie (`peez_console=…`) for a sign-in link made with `adminSecret`.
    func consoleCookie(adminSecret: String) async throws -> String {
        let link = try await request("POST", "/v1/console/links", secret: adminSecret, json: [:])
        let url = try #require(link.body["link"] as? String, "\(link.status) \(link.body)")
        let code = try #require(url.components(separatedBy: "#signin=").last)
        let session = try await request("POST", "/console/api/session", json: ["code": code])
        let setCookie = try #require(session.headers["Set-Cookie"] as? String, "\(session.status) \(session.body)")
        return String(try #require(setCookie.split(separator: ";").first))
    }

    deinit {
        try? FileManager.default.removeItem(atPath: errorLog)
        try? FileManager.default.removeItem(atPath: readyFile)
    }
}

struct ServiceError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
