import Foundation
public import PeezAPI
import PeezBasics
import Synchronization

/// The seeded workload of a run: shops selling months to members at their counters (an idempotency key a sale,
/// the same key again after a timeout, as the counter's outbox retries), the team cancelling sales, changing
/// members (Workload+Members), revoking and rotating the counters' credentials and enrolling new ones
/// (Workload+Credentials), members paying online (Workload+Payments) and keeping their card in Apple Wallet
/// (Workload+Wallet) or Google Wallet (Workload+GoogleWallet).
struct Workload: Sendable {
    struct Shop: Sendable {
        let id: String
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
    /// Members sold one month as the run began and left alone: the renewal reminders' (see ``Reminding``).
    let reminded: [(id: String, uuid: String)]
    /// Periods answered as sold and not yet picked for a cancellation.
    private let sold = SoldPeriods()
    /// Each shop's counter's credential, and the ones it had before.
    let keys: ShopKeys
    /// Chargily's stand-in, where a run pays online.
    let chargily: SoakClient?
    /// The members' iPhones that hold a pass in Wallet (see Workload+Wallet).
    let walletPhones = Held<WalletPhone>()

    /// How many times a counter sends a sale before it gives up for now (its outbox keeps it).
    static let attempts = 5
    /// How many members the renewal reminders have to themselves.
    static let remindedCount = 6

    init(
        seed: UInt64,
        clients: [SoakClient],
        adminSecret: String,
        history: History,
        shops: [Shop],
        keys: ShopKeys,
        members: [(id: String, uuid: String)],
        reminded: [(id: String, uuid: String)],
        chargily: SoakClient?
    ) {
        self.seed = seed
        self.clients = clients
        self.adminSecret = adminSecret
        self.history = history
        self.shops = shops
        self.keys = keys
        self.members = members
        self.reminded = reminded
        self.chargily = chargily
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
        members memberCount: Int,
        chargily: SoakClient?
    ) async throws -> Workload {
        var shops: [Shop] = []
        let keys = ShopKeys()
        for index in 0..<shopCount {
            let created = try await client.required(
                "POST",
                "/v1/vendors",
                secret: adminSecret,
                json: ["name": "Shop \(index)", "category": "epicerie", "neighbourhood": "usto"],
                as: CreatedVendorBody.self
            )
            shops.append(Shop(id: created.vendor.id))
            // The counter enrols as a shop's phone does: a one-time code the team made, exchanged for its own
            // credential. A code enrols once: when the answer to the exchange was lost and the retry finds the code
            // used, the counter asks for another (the credential the lost answer held is never used).
            var enrolled: IssuedCredentialBody?
            for attempt in 1...5 where enrolled == nil {
                let code = try await client.required(
                    "POST",
                    "/v1/vendors/\(created.vendor.id)/enrolment-codes",
                    secret: adminSecret,
                    json: [:],
                    as: EnrolmentCodeBody.self
                )
                do {
                    enrolled = try await client.required(
                        "POST",
                        "/v1/enrolments",
                        secret: "",
                        json: ["code": code.code, "label": "counter of shop \(index)"],
                        as: IssuedCredentialBody.self
                    )
                } catch let error as SoakError where error.description.contains("enrolment_code_used") && attempt < 5 {
                    continue
                }
            }
            guard let enrolled else { throw SoakError("shop \(index)'s counter could not enrol") }
            keys.enrolled(shop: index, ShopKeys.Key(id: enrolled.credential.id, secret: enrolled.secret))
        }
        var members: [(id: String, uuid: String)] = []
        for index in 0..<(memberCount + Self.remindedCount) {
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
            var created = HistoryEntry(client: "setup", kind: .rename, invoked: 0, completed: history.now(), outcome: .ok, member: uuid)
            created.value = member.name
            history.record(created)
        }
        let reminded = Array(members.suffix(Self.remindedCount))
        members.removeLast(Self.remindedCount)
        // A month each, sold at shop 0 as the run begins.
        for (index, member) in reminded.enumerated() {
            var sale = HistoryEntry(
                client: "setup",
                kind: .sale,
                invoked: history.now(),
                completed: 0,
                outcome: .ok,
                member: member.uuid,
                months: 1,
                vendor: shops[0].id,
                idempotencyKey: "soak-\(seed)-reminded-\(index)"
            )
            sale.period = try await client.required(
                "POST",
                "/v1/activations",
                secret: keys.current(shop: 0).secret,
                json: ["membership_id": member.id, "months": 1, "amount_dzd": 300],
                headers: ["Idempotency-Key": sale.idempotencyKey ?? ""],
                as: ActivationBody.self
            ).period.id
            sale.completed = history.now()
            history.record(sale)
        }
        return Workload(
            seed: seed,
            clients: clients,
            adminSecret: adminSecret,
            history: history,
            shops: shops,
            keys: keys,
            members: members,
            reminded: reminded,
            chargily: chargily
        )
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
            let key = keys.current(shop: shop)
            let operation = await sale(
                client: "shop-\(shop)",
                shop: shop,
                key: key,
                member: member,
                months: months,
                idempotencyKey: "soak-\(seed)-\(shop)-\(count)",
                instance: &instance,
                attempts: Self.attempts,
                random: &random
            )
            history.record(operation)
            if operation.attempts.last == "401" {
                // Cut off: the counter waits for the team to enrol it again.
                try? await Task.sleep(for: .milliseconds(Int.random(in: 200...600, using: &random)))
            }
            try? await Task.sleep(for: .milliseconds(Int.random(in: 0...40, using: &random)))
        }
    }

    /// One sale from a counter: the same key sent again after an answer was lost, up to `attempts` times, to the
    /// next instance each time.
    func sale(
        client: String,
        shop: Int,
        key: ShopKeys.Key,
        member: (id: String, uuid: String),
        months: Int,
        idempotencyKey: String,
        instance: inout Int,
        attempts: Int,
        random: inout SplitMix64
    ) async -> HistoryEntry {
        var operation = HistoryEntry(
            client: client,
            kind: .sale,
            invoked: history.now(),
            completed: 0,
            outcome: .unknown,
            member: member.uuid,
            months: months,
            vendor: shops[shop].id,
            idempotencyKey: idempotencyKey
        )
        operation.credential = key.id
        for _ in 0..<attempts {
            let sent = history.now()
            let exchange = await clients[instance].send(
                "POST",
                "/v1/activations",
                secret: key.secret,
                json: ["membership_id": member.id, "months": months, "amount_dzd": 300 * months],
                headers: ["Idempotency-Key": idempotencyKey]
            )
            operation.attempts.append(exchange.summary)
            // A credential refused after an attempt whose answer was lost says nothing of that attempt.
            let lostBefore = operation.outcome == .unknown && operation.attempts.count > 1
            operation.outcome = exchange.status == 401 && lostBefore ? .unknown : exchange.outcome
            if exchange.outcome == .ok {
                operation.answeredAttemptInvoked = sent
                operation.instance = instance
                operation.period = (try? JSONDecoder().decode(ActivationBody.self, from: exchange.body))?.period.id
                // The first answer again: the key had sold already (an attempt, or the network's copy of one).
                if exchange.fields["idempotent-replayed"] == "true" { operation.detail = "replayed" }
                if let period = operation.period { sold.list.withLock { $0.append((period, member.uuid)) } }
            }
            if exchange.outcome != .unknown { break }
            instance = (instance + 1) % clients.count
            try? await Task.sleep(for: .milliseconds(Int.random(in: 50...400, using: &random)))
        }
        operation.completed = history.now()
        return operation
    }

    /// Sends a change from `instance` on, again to the next instance while its answer is lost (3 times at most,
    /// 50 to 400 ms apart), and records it with each attempt's answer; returns the instance that answered last.
    @discardableResult
    func sendChange(
        _ operation: inout HistoryEntry,
        _ method: String,
        _ path: String,
        secret: String,
        json: [String: Any]?,
        headers: [String: String] = [:],
        from instance: Int,
        random: inout SplitMix64
    ) async -> Int {
        var instance = instance
        for attempt in 0..<3 {
            if attempt > 0 {
                instance = (instance + 1) % clients.count
                try? await Task.sleep(for: .milliseconds(Int.random(in: 50...400, using: &random)))
            }
            let exchange = await clients[instance].send(method, path, secret: secret, json: json, headers: headers)
            operation.attempts.append(exchange.summary)
            operation.outcome = exchange.outcome
            operation.instance = instance
            if exchange.outcome != .unknown { break }
        }
        operation.completed = history.now()
        history.record(operation)
        return instance
    }

    /// The team cancelling sales answered as made, now and then, until `deadline`.
    func cancel(until deadline: ContinuousClock.Instant) async {
        var random = SplitMix64.stream(0, of: seed)
        while ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(Int.random(in: 200...800, using: &random)))
            let pick = Int.random(in: 0..<1_000_000, using: &random)
            guard let (period, member) = sold.list.withLock({ $0.isEmpty ? nil : $0.remove(at: pick % $0.count) }) else { continue }
            var operation = HistoryEntry(
                client: "team",
                kind: .cancellation,
                invoked: history.now(),
                completed: 0,
                outcome: .unknown,
                member: member,
                period: period
            )
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
            history.record(await fetchCard(of: member, from: Int.random(in: 0..<clients.count, using: &random), by: "app-\(reader)"))
            try? await Task.sleep(for: .milliseconds(Int.random(in: 5...60, using: &random)))
        }
    }
}

extension Workload {
    /// One card fetch by `client` from `instance` (through `connection`, or the clients' proxy in front of it),
    /// with what the card showed.
    func fetchCard(
        of member: (id: String, uuid: String),
        from instance: Int,
        through connection: SoakClient? = nil,
        by client: String
    ) async
        -> HistoryEntry
    {
        var operation = HistoryEntry(client: client, kind: .cardFetch, invoked: history.now(), completed: 0, outcome: .unknown, member: member.uuid)
        let exchange = await (connection ?? clients[instance]).send("GET", "/v1/members/\(member.uuid)/card", secret: adminSecret)
        operation.attempts = [exchange.summary]
        operation.outcome = exchange.outcome
        operation.instance = instance
        if let card = try? JSONDecoder().decode(CardBody.self, from: exchange.body) {
            operation.token = card.token
            operation.tokenID = card.token_id
            operation.issuedAt = card.issued_at
            // What the card says, not the member beside it in the answer (read afresh).
            let reading = CardReading(token: card.token)
            operation.value = reading?.name
            operation.deviceKey = reading?.deviceKey
        }
        operation.completed = history.now()
        return operation
    }
}

/// The periods the counters were told they sold, shared with the team's cancellations.
final class SoldPeriods: Sendable {
    /// Each period with its member.
    let list = Mutex<[(period: String, member: String)]>([])
}

/// Each shop's counter's credential now, and the secrets it held before (revoked, or rotated away), which a
/// thief's copy of the phone goes on using.
final class ShopKeys: Sendable {
    struct Key: Sendable {
        let id: String
        let secret: String
    }

    private let current = Mutex<[Int: Key]>([:])
    private let retired = Mutex<[(shop: Int, key: Key)]>([])

    func current(shop: Int) -> Key { current.withLock { $0[shop]! } }

    func enrolled(shop: Int, _ key: Key) { current.withLock { $0[shop] = key } }

    /// The shop's key is revoked or rotated away: kept for the thief.
    func retire(shop: Int, _ key: Key) { retired.withLock { $0.append((shop, key)) } }

    /// A retired key, picked by `pick`, if any.
    func retiredKey(_ pick: Int) -> (shop: Int, key: Key)? { retired.withLock { $0.isEmpty ? nil : $0[pick % $0.count] } }
}
