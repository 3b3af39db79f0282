import Foundation
import PeezAPI
import PeezBasics

extension Workload {
    /// The team, every few seconds until `deadline`, revoking a shop counter's credential (a stolen phone) or
    /// rotating it with a grace of one to three seconds, then enrolling the counter again with a one-time code
    /// that, half the time, a second device tries to redeem at the same moment on the other instance.
    func manageCredentials(until deadline: ContinuousClock.Instant) async {
        var random = SplitMix64.stream(0xC4ED, of: seed)
        while ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(Int.random(in: 4_000...9_000, using: &random)))
            guard ContinuousClock.now < deadline else { return }
            let shop = Int.random(in: 0..<shops.count, using: &random)
            let key = keys.current(shop: shop)
            if Int.random(in: 0..<5, using: &random) < 3 {
                var operation = HistoryEntry(client: "team", kind: .credentialRevoke, invoked: history.now(), completed: 0, outcome: .unknown)
                operation.credential = key.id
                var instance = Int.random(in: 0..<clients.count, using: &random)
                for _ in 0..<3 {
                    let exchange = await clients[instance].send("POST", "/v1/credentials/\(key.id)/revoke", secret: adminSecret)
                    operation.attempts.append(exchange.summary)
                    operation.outcome = exchange.outcome
                    operation.instance = instance
                    if exchange.outcome != .unknown { break }
                    instance = (instance + 1) % clients.count
                }
                operation.completed = history.now()
                history.record(operation)
                keys.retire(shop: shop, key)
            } else {
                var operation = HistoryEntry(client: "team", kind: .credentialRotate, invoked: history.now(), completed: 0, outcome: .unknown)
                operation.credential = key.id
                let instance = Int.random(in: 0..<clients.count, using: &random)
                let exchange = await clients[instance].send(
                    "POST",
                    "/v1/credentials/\(key.id)/rotate",
                    secret: adminSecret,
                    json: ["grace_seconds": Int.random(in: 1...3, using: &random)]
                )
                operation.attempts = [exchange.summary]
                operation.outcome = exchange.outcome
                operation.instance = instance
                let issued = try? JSONDecoder().decode(IssuedCredentialBody.self, from: exchange.body)
                operation.expiresAt = issued?.previous?.expires_at.flatMap(history.seconds(of:))
                operation.completed = history.now()
                history.record(operation)
                keys.retire(shop: shop, key)
                if exchange.outcome == .ok, let issued {
                    keys.enrolled(shop: shop, ShopKeys.Key(id: issued.credential.id, secret: issued.secret))
                    continue
                }
                // A rotation whose answer was lost may have ended the old secret: the counter is enrolled again.
            }
            await enrol(shop: shop, random: &random, until: deadline)
        }
    }

    /// Enrols the shop's counter again: a code, redeemed (half the time by two devices at once, each through
    /// another instance) until one gets a credential, a new code when one is used up or its answer was lost.
    private func enrol(shop: Int, random: inout SplitMix64, until deadline: ContinuousClock.Instant) async {
        while ContinuousClock.now < deadline + .seconds(5) {
            let made = await clients[Int.random(in: 0..<clients.count, using: &random)].send(
                "POST",
                "/v1/vendors/\(shops[shop].id)/enrolment-codes",
                secret: adminSecret,
                json: [:]
            )
            guard let code = try? JSONDecoder().decode(EnrolmentCodeBody.self, from: made.body).code else {
                try? await Task.sleep(for: .milliseconds(300))
                continue
            }
            let racing = Int.random(in: 0..<2, using: &random) == 0
            let first = Int.random(in: 0..<clients.count, using: &random)
            let redemptions = await withTaskGroup(of: (entry: HistoryEntry, secret: String?).self) { group in
                for device in 0..<(racing ? 2 : 1) {
                    group.addTask { await redeem(code, shop: shop, device: device, instance: (first + device) % clients.count) }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            for redemption in redemptions { history.record(redemption.entry) }
            // The counter keeps the credential it got; the other device's, if the service gave two, is a thief's.
            if let won = redemptions.first(where: { $0.secret != nil }), let id = won.entry.credential, let secret = won.secret {
                keys.enrolled(shop: shop, ShopKeys.Key(id: id, secret: secret))
                return
            }
            try? await Task.sleep(for: .milliseconds(Int.random(in: 500...2_000, using: &random)))
        }
    }

    /// One device redeeming `code`: the operation, and the secret it was given (kept out of the history).
    private func redeem(_ code: String, shop: Int, device: Int, instance: Int) async -> (entry: HistoryEntry, secret: String?) {
        var operation = HistoryEntry(
            client: "shop-\(shop)-device-\(device)",
            kind: .enrolment,
            invoked: history.now(),
            completed: 0,
            outcome: .unknown
        )
        operation.code = code
        operation.vendor = shops[shop].id
        operation.instance = instance
        let exchange = await clients[instance].send("POST", "/v1/enrolments", secret: "", json: ["code": code, "label": "counter of shop \(shop)"])
        operation.attempts = [exchange.summary]
        operation.outcome = exchange.outcome
        let issued = try? JSONDecoder().decode(IssuedCredentialBody.self, from: exchange.body)
        operation.credential = issued?.credential.id
        operation.completed = history.now()
        return (operation, issued?.secret)
    }

    /// A thief's copy of a retired counter (its credential revoked or rotated away) selling now and then until
    /// `deadline`: every such sale begun after the revocation reached the service must be refused.
    func sellWithRetiredKeys(until deadline: ContinuousClock.Instant) async {
        var random = SplitMix64.stream(0x7E1F, of: seed)
        var count = 0
        var instance = 0
        while ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(Int.random(in: 300...900, using: &random)))
            guard let (shop, key) = keys.retiredKey(Int.random(in: 0..<1_000_000, using: &random)) else { continue }
            count += 1
            let member = members[Int.random(in: 0..<members.count, using: &random)]
            let months = Int.random(in: 1...3, using: &random)
            instance = (instance + 1) % clients.count
            history.record(
                await sale(
                    client: "thief",
                    shop: shop,
                    key: key,
                    member: member,
                    months: months,
                    idempotencyKey: "soak-\(seed)-thief-\(count)",
                    instance: &instance,
                    attempts: 1,
                    random: &random
                )
            )
        }
    }
}
