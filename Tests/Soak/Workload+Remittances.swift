import Foundation
import PeezAPI
import PeezBasics

extension Workload {
    /// The team recording the cash shops hand over until `deadline`: every second or two, a shop's remittance of
    /// 50 to 400 DZD (with override: a shop may hand over before its sales are in) under an idempotency key, sent
    /// again to the other instance when its answer is lost.
    func remit(until deadline: ContinuousClock.Instant) async {
        var random = SplitMix64.stream(0x4E3A, of: seed)
        var count = 0
        while ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(Int.random(in: 700...1_800, using: &random)))
            count += 1
            let shop = shops[Int.random(in: 0..<shops.count, using: &random)]
            let amount = Int.random(in: 50...400, using: &random)
            var operation = HistoryEntry(
                client: "team-cash",
                kind: .remittance,
                invoked: history.now(),
                completed: 0,
                outcome: .unknown,
                vendor: shop.id,
                idempotencyKey: "soak-\(seed)-remittance-\(count)"
            )
            operation.value = String(amount)
            var instance = Int.random(in: 0..<clients.count, using: &random)
            for _ in 0..<3 {
                let exchange = await clients[instance].send(
                    "POST",
                    "/v1/vendors/\(shop.id)/remittances",
                    secret: adminSecret,
                    json: ["amount_dzd": amount, "method": "cash", "received_by": "soak", "override": true],
                    headers: ["Idempotency-Key": operation.idempotencyKey ?? ""]
                )
                operation.attempts.append(exchange.summary)
                operation.outcome = exchange.outcome
                operation.instance = instance
                if exchange.outcome == .ok {
                    operation.detail = (try? JSONDecoder().decode(ShopEntryBody.self, from: exchange.body)).map { String($0.seq) }
                }
                if exchange.outcome != .unknown { break }
                instance = (instance + 1) % clients.count
                try? await Task.sleep(for: .milliseconds(Int.random(in: 200...600, using: &random)))
            }
            operation.completed = history.now()
            history.record(operation)
        }
    }
}
