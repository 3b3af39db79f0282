public import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A stand-in for Chargily Pay v2 (Tests/Tools/chargily-server.py, written from Chargily's published API):
/// checkouts over its API with a secret key, webhooks signed with it, and a control interface that acts out the
/// member paying and every way a webhook can go wrong. Runs until ``stop()``.
public struct ChargilyStandIn: Sendable {
    public let pid: String
    public let port: Int
    public let secretKey: String
    /// The API's base URL, as `PEEZ_CHARGILY_API_URL` takes it.
    public var apiURL: String { "http://127.0.0.1:\(port)/api/v2" }
    public let log: String

    public init(folder: TemporaryFolder, secretKey: String = "test_sk_" + UUID().uuidString.replacingOccurrences(of: "-", with: "")) throws {
        self.secretKey = secretKey
        port = TestPorts.unused()
        log = folder.file("chargily.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
            "Tools/chargily-server.py"
        ).path
        pid = try BackgroundServer.start(["python3", script, String(port), secretKey, log], port: port, output: folder.file("chargily.out"))
    }

    /// A call to the control interface (`/_control/...`): its status and JSON answer.
    // The wire itself: the stand-in's control interface, written by its Python.
    @discardableResult
    public func control(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> (status: Int, body: [String: Any]) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/_control/\(path)")!)
        request.httpMethod = method
        request.timeoutInterval = 30
        if let body {
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as! HTTPURLResponse).statusCode, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
    }

    /// Sets the delivery plan and the API's faults (`webhook`: once, twice, never, late, wrong_signature, unsigned).
    public func plan(_ plan: [String: Any]) async throws {
        let answer = try await control("POST", "plan", plan)
        guard answer.status == 200 else { throw PythonToolError(message: "the stand-in refused the plan \(plan): \(answer.body)") }
    }

    /// The member finishes checkout `id` on the gateway's page: `paid`, `failed` or `canceled`.
    @discardableResult
    public func pay(_ id: String, outcome: String = "paid") async throws -> [String: Any] {
        let answer = try await control("POST", "checkouts/\(id)/pay", ["outcome": outcome])
        guard answer.status == 200 else { throw PythonToolError(message: "the stand-in refused to \(outcome) \(id): \(answer.body)") }
        return answer.body
    }

    /// Every checkout as the stand-in has it: id → status, amount.
    public func checkouts() async throws -> [String: (status: String, amount: Int)] {
        let answer = try await control("GET", "checkouts")
        var found: [String: (status: String, amount: Int)] = [:]
        for checkout in answer.body["checkouts"] as? [[String: Any]] ?? [] {
            if let id = checkout["id"] as? String { found[id] = (checkout["status"] as? String ?? "", checkout["amount"] as? Int ?? 0) }
        }
        return found
    }

    /// The webhooks it delivered or tried to, in order, each as its log line holds it (`signature`: valid, wrong
    /// or none; `status`: what the endpoint answered, nil if nothing).
    // The wire itself: the stand-in's JSON log lines, written by its Python.
    public var deliveries: [[String: Any]] { BackgroundServer.requests(in: log).filter { $0["kind"] as? String == "delivery" } }

    public func stop() {
        _ = try? ProcessRunner.run(["kill", "-9", "--", "-" + pid])
    }
}
