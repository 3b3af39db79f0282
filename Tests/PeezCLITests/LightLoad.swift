import Foundation
import Synchronization

/// A quiet day's traffic on one service until stopped: each client in turn sells a month, asks `/health` and reads
/// two console panels. Requests wait up to ``requestTimeout`` for their answer, so that when the database goes
/// away some are still waiting inside the service when it is told to stop.
final class LightLoad: Sendable {
    private let service: ServiceProcess
    private let vendorSecret: String
    private let membershipIDs: [String]
    /// The console's session cookie (`peez_console=…`).
    private let consoleCookie: String
    private let stopped = Atomic<Bool>(false)
    private let succeeded = Atomic<Int>(0)

    /// How long a client waits for an answer.
    static let requestTimeout: TimeInterval = 30

    init(service: ServiceProcess, vendorSecret: String, membershipIDs: [String], consoleCookie: String) {
        self.service = service
        self.vendorSecret = vendorSecret
        self.membershipIDs = membershipIDs
        self.consoleCookie = consoleCookie
    }

    /// How many requests were answered with a 2xx.
    var successCount: Int { succeeded.load(ordering: .sequentiallyConsistent) }

    func stop() { stopped.store(true, ordering: .sequentiallyConsistent) }

    func run(clients: Int) async {
        await withTaskGroup(of: Void.self) { group in
            for client in 0..<clients {
                group.addTask { await self.use(from: client) }
            }
        }
    }

    private func use(from client: Int) async {
        var turn = client
        while !stopped.load(ordering: .sequentiallyConsistent) {
            turn += 1
            let reply: (status: Int, body: [String: Any], data: Data, headers: [AnyHashable: Any])?
            switch turn % 4 {
            case 0:
                // The wire itself: the sale's body as a counter sends it.
                let sale: [String: Any] = ["membership_id": membershipIDs[turn % membershipIDs.count], "months": 1, "amount_dzd": 300]
                reply = try? await service.request(
                    "POST",
                    "/v1/activations",
                    secret: vendorSecret,
                    json: sale,
                    headers: ["Idempotency-Key": UUID().uuidString],
                    timeout: Self.requestTimeout
                )
            case 1:
                reply = try? await service.request("GET", "/health", timeout: Self.requestTimeout)
            case 2:
                reply = try? await service.request("GET", "/console/api/sales", headers: ["Cookie": consoleCookie], timeout: Self.requestTimeout)
            default:
                let cookie = ["Cookie": consoleCookie]
                reply = try? await service.request("GET", "/console/api/members?q=Membre", headers: cookie, timeout: Self.requestTimeout)
            }
            if let reply, (200..<300).contains(reply.status) {
                succeeded.add(1, ordering: .sequentiallyConsistent)
            } else {
                try? await Task.sleep(for: .milliseconds(50))  // the database or the service is gone: do not spin
            }
        }
    }
}
