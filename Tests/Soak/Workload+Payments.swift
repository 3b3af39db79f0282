import Foundation
import PeezAPI
import PeezBasics

extension Workload {
    /// How a webhook may reach the service, from Chargily's stand-in: once, twice (the same bytes), never (only
    /// the service's own read-back finds the payment), or late.
    static let webhookPlans = ["once", "twice", "never", "late"]

    /// Members paying online until `deadline`: a checkout asked for under an idempotency key (sent again, to the
    /// other instance, when its answer is lost), then finished on the gateway's page (paid three times in four,
    /// else failed or cancelled), its webhook delivered as the stand-in's plan of the moment says.
    func payOnline(until deadline: ContinuousClock.Instant) async {
        guard let chargily else { return }
        var random = SplitMix64.stream(0x9A1D, of: seed)
        var count = 0
        while ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(Int.random(in: 300...900, using: &random)))
            count += 1
            let member = members[Int.random(in: 0..<members.count, using: &random)]
            var operation = HistoryEntry(
                client: "app-payments",
                kind: .checkout,
                invoked: history.now(),
                completed: 0,
                outcome: .unknown,
                member: member.uuid,
                months: Int.random(in: 1...3, using: &random),
                idempotencyKey: "soak-\(seed)-checkout-\(count)"
            )
            var instance = Int.random(in: 0..<clients.count, using: &random)
            var payment: PaymentBody?
            for _ in 0..<3 {
                let exchange = await clients[instance].send(
                    "POST",
                    "/v1/members/\(member.uuid)/checkouts",
                    secret: adminSecret,
                    json: ["months": operation.months ?? 1],
                    headers: ["Idempotency-Key": operation.idempotencyKey ?? ""]
                )
                operation.attempts.append(exchange.summary)
                operation.outcome = exchange.outcome
                operation.instance = instance
                payment = try? JSONDecoder().decode(PaymentBody.self, from: exchange.body)
                if exchange.outcome != .unknown { break }
                instance = (instance + 1) % clients.count
                try? await Task.sleep(for: .milliseconds(Int.random(in: 200...600, using: &random)))
            }
            operation.payment = payment?.id
            operation.checkout = payment?.checkout_id
            if operation.outcome == .ok, let checkout = payment?.checkout_id {
                let plan = Self.webhookPlans[Int.random(in: 0..<Self.webhookPlans.count, using: &random)]
                _ = await chargily.send("POST", "/_control/plan", secret: "", json: ["webhook": plan, "late_ms": 400])
                let ending = ["paid", "paid", "paid", "paid", "paid", "failed", "canceled"][Int.random(in: 0..<7, using: &random)]
                let paid = await chargily.send("POST", "/_control/checkouts/\(checkout)/pay", secret: "", json: ["outcome": ending])
                operation.value = paid.status == 200 ? ending : nil
                operation.detail = "webhook \(plan)"
            }
            operation.completed = history.now()
            history.record(operation)
        }
    }
}
