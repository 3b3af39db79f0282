import Foundation
import PeezAPI
import PeezBasics
import Soak
import Synchronization
import TestSupport
import Testing

/// What a 201 promises on PostgreSQL: the sale is committed and flushed on the database server, so a crash
/// of PostgreSQL right after the answer loses nothing.
@Suite("PostgreSQL crash under load", .serialized)
struct PostgresCrashTests {
    /// Crash rounds (`PEEZ_CRASH_ROUNDS` runs more when hunting a rare loss).
    static let rounds = Int(ProcessInfo.processInfo.environment["PEEZ_CRASH_ROUNDS"] ?? "") ?? 6

    /// A shop added through `instance`: its API secret.
    static func shopSecret(on instance: ServiceProcess, adminSecret: String) async throws -> String {
        let vendor = try await instance.request(
            "POST",
            "/v1/vendors",
            secret: adminSecret,
            json: ["name": "Boucherie Centrale", "category": "boucherie", "neighbourhood": "centre-ville"]
        )
        return try #require(vendor.body["api_secret"] as? String)
    }

    /// The database crashed and started again, over and over, under sales: each instance stays up and sells
    /// again once it is back. PostgresNIO 1.33's pool, given a minimum of connections, stopped the process on an
    /// illegal instruction when a lease came while the server's connections were closing (the soak found it).
    @Test func anInstanceOutlivesPostgresCrashingAndStartingAgainUnderSales() async throws {
        let ledger = try await SharedLedger.make()
        defer { ledger.remove() }
        let (postgres, adminSecret) = (ledger.postgres, ledger.adminSecret)
        // The instances reach the database through the soak's faulty proxy, which holds back what it forwards now
        // and then: the server's connections close one by one, not at once, as over a real network.
        let proxy = try FaultyProxy(name: "database proxy", target: postgres.port, odds: .init(delay: 0.05), random: SplitMix64(seed: 46))
        defer { proxy.stop() }
        let arguments = ledger.arguments.map { $0.replacingOccurrences(of: ":\(postgres.port)/", with: ":\(proxy.port)/") }
        let instances = try (0..<2).map { _ in try ServiceProcess(arguments: arguments, port: TestPorts.unused()) }
        defer { for instance in instances { instance.killHard() } }
        for instance in instances { try await instance.waitUntilReady() }
        let vendorSecret = try await Self.shopSecret(on: instances[0], adminSecret: adminSecret)
        let member = try await instances[0].request(
            "POST",
            "/v1/members",
            secret: adminSecret,
            json: [
                "uuid": UUID().uuidString.lowercased(), "name": "Membre", "phone": "+213550000099", "email": "m@example.dz", "neighbourhood": "usto",
            ]
        )
        let membershipID = try #require(member.body["membership_id"] as? String, "\(member.body)")
        let load = SaleLoad(instances: instances, vendorSecret: vendorSecret, membershipIDs: [membershipID])
        let clients = Task { await load.run(clients: 16) }
        for _ in 1...Self.rounds * 2 {
            try await Task.sleep(for: .milliseconds(Int.random(in: 300...900)))
            try postgres.crash()
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...300)))
            try await onOwnThread { try postgres.start() }
        }
        let sold = load.acknowledged.count
        try await Task.sleep(for: .seconds(3))
        load.stop()
        await clients.value
        for (index, instance) in instances.enumerated() {
            #expect(instance.process.isRunning, "instance \(index) is still running after \(Self.rounds * 2) crashes of PostgreSQL")
        }
        #expect(load.acknowledged.count > sold, "sales were answered again once the database was back")
    }

    @Test func everySaleAnsweredCreatedSurvivesAnImmediatePostgresShutdown() async throws {
        let ledger = try await SharedLedger.make()
        defer { ledger.remove() }
        let (postgres, adminSecret) = (ledger.postgres, ledger.adminSecret)

        var instances = try await ledger.startInstances()
        let vendorSecret = try await Self.shopSecret(on: instances[0], adminSecret: adminSecret)
        var membershipIDs: [String] = []
        for number in 0..<16 {
            let member = try await instances[0].request(
                "POST",
                "/v1/members",
                secret: adminSecret,
                json: [
                    "uuid": UUID().uuidString.lowercased(), "name": "Membre \(number)", "phone": "+2135500000\(10 + number)",
                    "email": "membre\(number)@example.dz", "neighbourhood": "usto",
                ]
            )
            membershipIDs.append(try #require(member.body["membership_id"] as? String, "\(member.body)"))
        }

        var acknowledged: Set<String> = []
        for round in 1...Self.rounds {
            if round > 1 {
                try await onOwnThread { try postgres.start() }
                instances = try await ledger.startInstances()
            }
            let load = SaleLoad(instances: instances, vendorSecret: vendorSecret, membershipIDs: membershipIDs)
            let clients = Task { await load.run(clients: 8) }
            // Crash at a random moment once sales are flowing.
            let deadline = ContinuousClock.now + .seconds(60)
            while load.acknowledged.count < 30 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            try await Task.sleep(for: .milliseconds(Int.random(in: 200...1_000)))
            try postgres.crash()
            try await Task.sleep(for: .milliseconds(500))
            load.stop()
            await clients.value
            for instance in instances { instance.killHard() }

            let answered = load.acknowledged
            #expect(answered.count >= 30, "round \(round): the crash came under load (\(answered.count) sales answered 201)")
            acknowledged.formUnion(answered)
            try await onOwnThread { try postgres.start() }
            let stored = Set(try postgres.psql("SELECT lower(id) FROM periods").split(separator: "\n").map(String.init))
            let lost = acknowledged.subtracting(stored)
            #expect(
                lost.isEmpty,
                "round \(round): \(lost.count) of \(acknowledged.count) sales answered 201 are not in the database: \(lost.sorted().prefix(5))"
            )
            try postgres.crash()
        }
    }

    /// Two service instances on one database, as behind a load balancer.
}

/// Clients selling one month at a time through every instance in turn until stopped, each sale with a fresh
/// idempotency key; remembers the period of every sale answered 201.
final class SaleLoad: Sendable {
    private let instances: [ServiceProcess]
    private let vendorSecret: String
    private let membershipIDs: [String]
    private let stopped = Atomic<Bool>(false)
    private let answered = Mutex<Set<String>>([])
    private let serverErrors = Atomic<Int>(0)

    init(instances: [ServiceProcess], vendorSecret: String, membershipIDs: [String]) {
        self.instances = instances
        self.vendorSecret = vendorSecret
        self.membershipIDs = membershipIDs
    }

    /// The ids (lower case) of the periods whose sale was answered 201.
    var acknowledged: Set<String> { answered.withLock { $0 } }

    /// How many requests the service answered with a 5xx.
    var serverErrorCount: Int { serverErrors.load(ordering: .sequentiallyConsistent) }

    func stop() { stopped.store(true, ordering: .sequentiallyConsistent) }

    func run(clients: Int) async {
        await withTaskGroup(of: Void.self) { group in
            for client in 0..<clients {
                group.addTask { await self.sell(from: client) }
            }
        }
    }

    private func sell(from client: Int) async {
        var turn = client
        while !stopped.load(ordering: .sequentiallyConsistent) {
            turn += 1
            // The wire itself: the sale's body as a counter sends it.
            let sale: [String: Any] = ["membership_id": membershipIDs[turn % membershipIDs.count], "months": 1, "amount_dzd": 300]
            let reply = try? await instances[turn % instances.count].request(
                "POST",
                "/v1/activations",
                secret: vendorSecret,
                json: sale,
                headers: ["Idempotency-Key": UUID().uuidString],
                timeout: 5
            )
            if let reply, reply.status == 201, let id = (try? JSONDecoder().decode(ActivationBody.self, from: reply.data))?.period.id {
                _ = answered.withLock { $0.insert(id.lowercased()) }
            } else {
                if let reply, reply.status >= 500 { serverErrors.add(1, ordering: .sequentiallyConsistent) }
                try? await Task.sleep(for: .milliseconds(20))  // the database is down: do not spin
            }
        }
    }
}
