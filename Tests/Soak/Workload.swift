import Foundation
public import PeezAPI
import PeezBasics
import Synchronization

/// The seeded workload of a run: shops selling months to members at their counters (an idempotency key a sale,
/// the same key again after a timeout, as the counter's outbox retries) and the team cancelling sales.
struct Workload: Sendable {
    struct Shop: Sendable {
        let id: String
        let secret: String
    }

    let seed: UInt64
    /// One client an instance: a counter sends to one and, when an answer is lost, tries the next, as a load
    /// balancer would.
    let clients: [SoakClient]
    let adminSecret: String
    let history: History
    let shops: [Shop]
    /// Membership ids and uuids.
    let members: [(id: String, uuid: String)]
    /// Periods answered as sold and not yet picked for a cancellation.
    private let sold = SoldPeriods()

    /// How many times a counter sends a sale before it gives up for now (its outbox keeps it).
    static let attempts = 5

    init(seed: UInt64, clients: [SoakClient], adminSecret: String, history: History, shops: [Shop], members: [(id: String, uuid: String)]) {
        self.seed = seed
        self.clients = clients
        self.adminSecret = adminSecret
        self.history = history
        self.shops = shops
        self.members = members
    }

    /// Sets up `shopCount` shops and `memberCount` members through the API (with `client`, straight to an instance);
    /// the workload then sends through `clients`.
    static func setUp(
        seed: UInt64,
        client: SoakClient,
        clients: [SoakClient],
        adminSecret: String,
        history: History,
        shops shopCount: Int,
        members memberCount: Int
    ) async throws -> Workload {
        var shops: [Shop] = []
        for index in 0..<shopCount {
            let created = try await client.required(
                "POST",
                "/v1/vendors",
                secret: adminSecret,
                json: ["name": "Shop \(index)", "category": "epicerie", "neighbourhood": "usto"],
                as: CreatedVendorBody.self
            )
            shops.append(Shop(id: created.vendor.id, secret: created.api_secret))
        }
        var members: [(id: String, uuid: String)] = []
        for index in 0..<memberCount {
            let uuid = UUID().uuidString.lowercased()
            let member = try await client.required(
                "POST",
                "/v1/members",
                secret: adminSecret,
                json: [
                    "uuid": uuid, "name": "Member \(index)", "phone": String(format: "+2135%08d", index), "email": "m\(index)@example.dz",
                    "neighbourhood": "usto",
                ],
                as: MemberBody.self
            )
            members.append((member.membership_id, uuid))
        }
        return Workload(seed: seed, clients: clients, adminSecret: adminSecret, history: history, shops: shops, members: members)
    }

    /// A shop's counter selling until `deadline`.
    func sell(at shop: Int, until deadline: ContinuousClock.Instant) async {
        var random = SplitMix64.stream(UInt64(shop + 1), of: seed)
        var count = 0
        var instance = shop % clients.count
        while ContinuousClock.now < deadline {
            count += 1
            let member = members[Int.random(in: 0..<members.count, using: &random)]
            let months = Int.random(in: 1...3, using: &random)
            var operation = HistoryEntry(
                client: "shop-\(shop)",
                kind: .sale,
                invoked: history.now(),
                completed: 0,
                outcome: .unknown,
                member: member.uuid,
                months: months,
                vendor: shops[shop].id,
                idempotencyKey: "soak-\(seed)-\(shop)-\(count)"
            )
            for _ in 0..<Self.attempts {
                let exchange = await clients[instance].send(
                    "POST",
                    "/v1/activations",
                    secret: shops[shop].secret,
                    json: ["membership_id": member.id, "months": months, "amount_dzd": 300 * months],
                    headers: ["Idempotency-Key": operation.idempotencyKey ?? ""]
                )
                operation.attempts.append(exchange.summary)
                operation.outcome = exchange.outcome
                if exchange.outcome == .ok {
                    operation.period = (try? JSONDecoder().decode(ActivationBody.self, from: exchange.body))?.period.id
                    if let period = operation.period { sold.list.withLock { $0.append(period) } }
                }
                if exchange.outcome != .unknown { break }
                instance = (instance + 1) % clients.count
                try? await Task.sleep(for: .milliseconds(Int.random(in: 50...400, using: &random)))
            }
            operation.completed = history.now()
            history.record(operation)
            try? await Task.sleep(for: .milliseconds(Int.random(in: 0...40, using: &random)))
        }
    }

    /// The team cancelling sales answered as made, now and then, until `deadline`.
    func cancel(until deadline: ContinuousClock.Instant) async {
        var random = SplitMix64.stream(0, of: seed)
        while ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(Int.random(in: 200...800, using: &random)))
            let pick = Int.random(in: 0..<1_000_000, using: &random)
            guard let period = sold.list.withLock({ $0.isEmpty ? nil : $0.remove(at: pick % $0.count) }) else { continue }
            var operation = HistoryEntry(client: "team", kind: .cancellation, invoked: history.now(), completed: 0, outcome: .unknown, period: period)
            for attempt in 0..<3 {
                let exchange = await clients[attempt % clients.count].send("POST", "/v1/activations/\(period)/cancel", secret: adminSecret)
                operation.attempts.append(exchange.summary)
                operation.outcome = exchange.outcome
                operation.instance = attempt % clients.count
                if let body = try? JSONDecoder().decode(CancellationBody.self, from: exchange.body) {
                    operation.member = body.period.member_uuid
                    operation.revokedBefore = body.cards_revoked_before
                }
                if exchange.outcome != .unknown { break }
                try? await Task.sleep(for: .milliseconds(Int.random(in: 50...400, using: &random)))
            }
            operation.completed = history.now()
            history.record(operation)
        }
    }
}

extension Workload {
    /// The members' app fetching their cards from any instance until `deadline` (`reader` tells the fetchers
    /// apart): each answer recorded with the card's id and when it was issued.
    func fetchCards(reader: Int, until deadline: ContinuousClock.Instant) async {
        var random = SplitMix64.stream(0xCA4D + UInt64(reader), of: seed)
        while ContinuousClock.now < deadline {
            let member = members[Int.random(in: 0..<members.count, using: &random)]
            let instance = Int.random(in: 0..<clients.count, using: &random)
            let client = clients[instance]
            var operation = HistoryEntry(
                client: "app-\(reader)",
                kind: .cardFetch,
                invoked: history.now(),
                completed: 0,
                outcome: .unknown,
                member: member.uuid
            )
            let exchange = await client.send("GET", "/v1/members/\(member.uuid)/card", secret: adminSecret)
            operation.attempts = [exchange.summary]
            operation.outcome = exchange.outcome
            operation.instance = instance
            if let card = try? JSONDecoder().decode(CardBody.self, from: exchange.body) {
                operation.token = card.token
                operation.tokenID = card.token_id
                operation.issuedAt = card.issued_at
            }
            operation.completed = history.now()
            history.record(operation)
            try? await Task.sleep(for: .milliseconds(Int.random(in: 5...60, using: &random)))
        }
    }
}

/// The periods the counters were told they sold, shared with the team's cancellations.
final class SoldPeriods: Sendable {
    let list = Mutex<[String]>([])
}
