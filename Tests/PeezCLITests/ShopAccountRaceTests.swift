import Foundation
import PeezAPI
import PeezBasics
import Synchronization
import TestSupport
import Testing

/// The shops' accounts under two `peez serve` on one ledger at once, one killed with -9 midway: sales (retried
/// with their key on the other instance when an answer is lost), cancellations and remittances race each other,
/// and afterwards every shop's statement equals, line for line, what the ledger's periods and the team's entries
/// say — rebuilt here from the API's member subscriptions, not from the accounts.
@Suite("Shop accounts under two instances and kill -9", .serialized)
struct ShopAccountRaceTests {
    /// A day's figures as the test rebuilds them: sales, their dinars, cancellations, theirs, remitted.
    struct Day: Equatable, CustomStringConvertible {
        var sales = 0, salesDZD = 0, cancellations = 0, cancellationsDZD = 0, remittedDZD = 0, adjustedDZD = 0
        var description: String { "\(sales)·\(salesDZD) −\(cancellations)·\(cancellationsDZD) remitted \(remittedDZD) adjusted \(adjustedDZD)" }
    }

    @Test(arguments: TestLedger.allCases)
    func everyStatementLineEqualsTheLedgerAfterRacesAndAKill(ledger kind: TestLedger) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (arguments, admin, shared) = try await kind.make(in: folder)
        defer { shared?.remove() }
        let first = try ServiceProcess(arguments: arguments, port: TestPorts.unused())
        try await first.waitUntilReady()
        let second = try ServiceProcess(arguments: arguments, port: TestPorts.unused())
        defer { second.killHard() }
        try await second.waitUntilReady()
        let race = Race(instances: [first, second])

        var shops: [(id: String, secret: String)] = []
        for (index, category) in ["boucherie", "pressing", "epicerie"].enumerated() {
            let made = try await first.request(
                "POST",
                "/v1/vendors",
                secret: admin,
                json: ["name": "Shop \(index)", "category": category, "neighbourhood": "usto"],
                as: CreatedVendorBody.self
            )
            let body = try #require(made.body)
            shops.append((body.vendor.id, body.api_secret))
        }
        var members: [(uuid: String, membershipID: String)] = []
        for index in 0..<8 {
            let uuid = UUID().uuidString.lowercased()
            let made = try await first.request(
                "POST",
                "/v1/members",
                secret: admin,
                json: [
                    "uuid": uuid, "name": "Membre \(index)", "phone": String(format: "+21377%07d", 4_600_000 + index),
                    "email": "race\(index)@example.dz", "neighbourhood": "usto",
                ]
            )
            members.append((uuid, try #require(made.body["membership_id"] as? String, "\(made.body)")))
        }
        let (shopList, memberList) = (shops, members)
        let clients = Task {
            await withTaskGroup(of: Void.self) { group in
                for client in 0..<6 {
                    group.addTask {
                        var step = 0
                        while race.running.load(ordering: .relaxed) {
                            step += 1
                            let shop = shopList[(client + step) % shopList.count]
                            switch (client + step) % 7 {
                            case 0:
                                // A cancellation of a sale already answered.
                                if let period = race.sold.withLock({ $0.randomElement() }) {
                                    _ = await race.send("POST", "/v1/activations/\(period)/cancel", admin, [:], key: nil)
                                }
                            case 1:
                                let body: [String: Any] = [
                                    "amount_dzd": Int.random(in: 50...400), "method": "cash", "received_by": "Karim", "override": true,
                                ]
                                _ = await race.send("POST", "/v1/vendors/\(shop.id)/remittances", admin, body, key: UUID().uuidString)
                            default:
                                let months = Int.random(in: 1...3)
                                let member = memberList.randomElement()!
                                let body: [String: Any] = ["membership_id": member.membershipID, "months": months, "amount_dzd": 300 * months]
                                if let (status, answer) = await race.send("POST", "/v1/activations", shop.secret, body, key: UUID().uuidString),
                                    status == 201,
                                    let period = (answer["period"] as? [String: Any])?["id"] as? String
                                {
                                    race.sold.withLock { $0.append(period) }
                                }
                            }
                        }
                    }
                }
            }
        }
        // Counted, not timed: a loaded machine answers fewer sales a second, so the race runs until enough happened
        // on both sides of the kill (at least three seconds each, at most a minute).
        try await race.runUntil(sales: 15)
        race.killed.store(true, ordering: .relaxed)
        first.killHard()
        try await race.runUntil(sales: 30)
        race.running.store(false, ordering: .relaxed)
        await clients.value
        // Folded or not, a balance is exact: the survivor's fold may run at any time.

        // The ledger as its own API tells it: every member's periods, and each shop's team entries.
        var expected: [String: [String: Day]] = [:]
        for member in members {
            let subscription = try await second.request("GET", "/v1/members/\(member.uuid)/subscription", secret: admin, as: SubscriptionBody.self)
            for period in try #require(subscription.body).periods {
                guard let shop = period.vendor_id else { continue }
                expected[shop, default: [:]][String(period.purchased_at.prefix(10)), default: Day()].sales += 1
                expected[shop, default: [:]][String(period.purchased_at.prefix(10)), default: Day()].salesDZD += period.amount_dzd
                if let cancelled = period.cancelled_at {
                    expected[shop, default: [:]][String(cancelled.prefix(10)), default: Day()].cancellations += 1
                    expected[shop, default: [:]][String(cancelled.prefix(10)), default: Day()].cancellationsDZD += period.amount_dzd
                }
            }
        }
        var remittances = 0
        for shop in shops {
            let entries = try #require(
                try await second.request("GET", "/v1/vendors/\(shop.id)/entries?limit=1000", secret: admin, as: ShopEntryListBody.self).body
            )
            for entry in entries.entries where entry.kind == "remittance" {
                expected[shop.id, default: [:]][entry.date, default: Day()].remittedDZD += Int(-entry.amount_dzd)
                remittances += 1
            }
            let keys = Set(entries.entries.filter { $0.kind == "sale" }.map(\.period_id))
            #expect(keys.count == entries.entries.filter { $0.kind == "sale" }.count, "\(kind): a sale with two entries")
        }
        let now = AlgiersCalendar.dayNumber(Int64(Date().timeIntervalSince1970))
        let (today, yesterday) = (AlgiersCalendar.dayText(now), AlgiersCalendar.dayText(now - 1))
        var lines = 0
        for shop in shops {
            let reply = try await second.request(
                "GET",
                "/v1/vendors/\(shop.id)/statement?from=\(yesterday)&to=\(today)",
                secret: admin,
                as: ShopStatementBody.self
            )
            let statement = try #require(reply.body, "\(kind): no statement for \(shop.id)")
            var got: [String: Day] = [:]
            for day in statement.days {
                let f = day.figures
                got[day.date] = Day(
                    sales: Int(f.sales),
                    salesDZD: Int(f.sales_dzd),
                    cancellations: Int(f.cancellations),
                    cancellationsDZD: Int(f.cancellations_dzd),
                    remittedDZD: Int(f.remitted_dzd),
                    adjustedDZD: Int(f.adjusted_dzd)
                )
                lines += 1
            }
            #expect(got == expected[shop.id] ?? [:], "\(kind): shop \(shop.id)'s statement differs from its ledger")
            let balance = (expected[shop.id] ?? [:]).values.reduce(0) { $0 + $1.salesDZD - $1.cancellationsDZD - $1.remittedDZD }
            #expect(statement.closing_balance_dzd == Int64(balance) && statement.opening_balance_dzd == 0)
            let account = try await second.request("GET", "/v1/vendors/\(shop.id)/account", secret: admin, as: ShopAccountBody.self)
            #expect(account.body?.balance_dzd == Int64(balance), "\(kind): shop \(shop.id)'s balance")
        }
        let count = race.sold.withLock { $0.count }
        #expect(count > 20 && remittances > 0, "\(kind): too little happened to prove anything: \(count) sales, \(remittances) remittances")
        print("\(kind): \(count) sales acknowledged, \(remittances) remittances, \(lines) statement lines equal to the ledger after a kill -9")
    }
}

/// The clients' view of the two instances: which is killed, whether to go on, the sales answered.
final class Race: Sendable {
    let instances: [ServiceProcess]
    let killed = Atomic<Bool>(false)
    let running = Atomic<Bool>(true)
    /// The periods of the sales answered 201.
    let sold = Mutex<[String]>([])

    init(instances: [ServiceProcess]) { self.instances = instances }

    /// Lets the clients run at least three seconds and until `sales` sales were answered, or a minute has passed.
    func runUntil(sales: Int) async throws {
        let started = ContinuousClock.now
        try await Task.sleep(for: .seconds(3))
        while sold.withLock({ $0.count }) < sales, ContinuousClock.now - started < .seconds(60) {
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    /// Sends until an instance answers below 500: a request to the killed one goes to the other, under its key.
    func send(_ method: String, _ path: String, _ secret: String, _ json: [String: Any]?, key: String?) async -> (Int, [String: Any])? {
        for attempt in 0..<40 {
            let instance = killed.load(ordering: .relaxed) ? instances[1] : instances[attempt % 2]
            let headers = key.map { ["Idempotency-Key": $0] } ?? [:]
            if let reply = try? await instance.request(method, path, secret: secret, json: json, headers: headers), reply.status < 500 {
                return (reply.status, reply.body)
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }
}
