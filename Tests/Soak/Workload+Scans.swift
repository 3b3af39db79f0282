import Foundation
import PeezAPI
import PeezBasics

extension Workload {
    /// Each shop's counter reporting its scan log until `deadline`: every second or two the entries logged since
    /// its last report (one to five cards checked), the same report sent again while its answer is lost, with the
    /// counter's credential of the moment; a report refused keeps its entries for the next.
    func reportScans(at shop: Int, until deadline: ContinuousClock.Instant) async {
        var random = SplitMix64.stream(0x5CA4 + UInt64(shop), of: seed)
        let counter = UUID(uuidString: String(format: "5CA40000-0000-4000-8000-%012llx", UInt64(shop) &+ seed &* 16))!.uuidString.lowercased()
        var pending: [(seq: Int, member: String)] = []
        var next = 1
        var instance = shop % clients.count
        while ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(Int.random(in: 800...2_000, using: &random)))
            for _ in 0..<Int.random(in: 1...5, using: &random) {
                pending.append((next, members[Int.random(in: 0..<members.count, using: &random)].id))
                next += 1
            }
            let key = keys.current(shop: shop)
            var operation = HistoryEntry(client: "shop-\(shop)", kind: .scanReport, invoked: history.now(), completed: 0, outcome: .unknown)
            operation.vendor = shops[shop].id
            operation.credential = key.id
            operation.value = counter
            operation.entries = pending.map { "\($0.seq) \($0.member)" }
            let now = Int64(Date().timeIntervalSince1970)
            let entries: [[String: Any]] = pending.map {
                ["seq": $0.seq, "at": now, "verdict": "valid", "member": $0.member, "offline": false, "trust_age": 60]
            }
            for _ in 0..<3 {
                let exchange = await clients[instance].send(
                    "POST",
                    "/v1/counter/scans",
                    secret: key.secret,
                    json: ["counter_id": counter, "entries": entries]
                )
                operation.attempts.append(exchange.summary)
                let lostBefore = operation.outcome == .unknown && operation.attempts.count > 1
                operation.outcome = exchange.status == 401 && lostBefore ? .unknown : exchange.outcome
                operation.instance = instance
                if let answer = try? JSONDecoder().decode(ScanReportAnswer.self, from: exchange.body) {
                    operation.refusedEntries = answer.refused.map(\.seq)
                }
                if exchange.outcome != .unknown { break }
                instance = (instance + 1) % clients.count
            }
            operation.completed = history.now()
            history.record(operation)
            if operation.outcome == .ok { pending.removeAll() }
        }
    }
}
