import Foundation
import PeezAPI
import PeezBasics
import TestSupport
import Testing

/// Members paying online, end to end: two production `peez serve` on one ledger (SQLite file or PostgreSQL),
/// Chargily's stand-in (written from its published API) sending its webhooks over HTTP once, twice, late, forged,
/// unsigned or never, replaying them and sending a late "failed" after a "paid", and one instance killed with -9
/// midway and started again. Every checkout the stand-in says was paid is exactly one period, and no other
/// checkout is any.
@Suite("Online payments through peez serve", .serialized)
struct OnlinePaymentServeTests {
    enum Ledger: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    /// The two instances' common arguments and the secrets, on a ledger made with `peez admin`.
    struct Deployment {
        var arguments: [String]
        var admin: String
        var backend: String
        var shared: SharedLedger?
    }

    static func deployment(_ kind: Ledger, folder: TemporaryFolder) async throws -> Deployment {
        var shared: SharedLedger?
        let arguments: [String]
        let admin: String
        let store: [String]
        switch kind {
        case .sqlite:
            #expect(try await PeezCommand.run(["keys", "generate", "--out", folder.file("keys")]).status == 0)
            store = ["--database", folder.file("ledger.sqlite")]
            let made = try await PeezCommand.run(["admin", "create-token", "--role", "admin", "--create-database"] + store)
            try #require(made.status == 0, "\(made.standardError)")
            admin = made.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
            arguments = store + ["--signing-key", folder.file("keys/signing-key.pem"), "--published-keys", folder.file("published")]
        case .postgres:
            let ledger = try await SharedLedger.make()
            shared = ledger
            store = ["--database-url", ledger.postgres.url]
            (arguments, admin) = (ledger.arguments, ledger.adminSecret)
        }
        let backend = try await PeezCommand.run(["admin", "create-token", "--role", "backend"] + store)
        try #require(backend.status == 0, "\(backend.standardError)")
        return Deployment(
            arguments: arguments,
            admin: admin,
            backend: backend.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines),
            shared: shared
        )
    }

    /// A `peez serve` of `deployment` on `port` paying through `chargily`, its webhooks to itself.
    static func instance(_ deployment: Deployment, port: Int, chargily: ChargilyStandIn, keyFile: String) throws -> ServiceProcess {
        try ServiceProcess(
            arguments: deployment.arguments,
            port: port,
            environment: [
                "PEEZ_CHARGILY_SECRET_KEY": keyFile, "PEEZ_CHARGILY_API_URL": chargily.apiURL,
                "PEEZ_CHARGILY_SUCCESS_URL": "https://peez.dz/paid",
                "PEEZ_CHARGILY_WEBHOOK_URL": "http://127.0.0.1:\(port)/v1/payments/chargily/webhook",
                "PEEZ_PAYMENT_CHECK_AFTER": "2",
            ]
        )
    }

    @Test(arguments: Ledger.allCases)
    func everyPaidCheckoutIsOnePeriodWhateverTheWebhooksDoAndAKillMidway(ledger kind: Ledger) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let deployment = try await Self.deployment(kind, folder: folder)
        defer { deployment.shared?.remove() }
        let chargily = try ChargilyStandIn(folder: folder)
        defer { chargily.stop() }
        let keyFile = folder.file("chargily.key")
        try Data((chargily.secretKey + "\n").utf8).write(to: URL(fileURLWithPath: keyFile))
        chmod(keyFile, 0o600)
        let ports = [TestPorts.unused(), TestPorts.unused()]
        var instances = try ports.map { try Self.instance(deployment, port: $0, chargily: chargily, keyFile: keyFile) }
        defer { for instance in instances { instance.killHard() } }
        for instance in instances { try await instance.waitUntilReady() }

        var members: [String] = []
        for index in 0..<4 {
            let uuid = UUID().uuidString.lowercased()
            let made = try await instances[0].request(
                "POST",
                "/v1/members",
                secret: deployment.backend,
                json: [
                    "uuid": uuid, "name": "Membre \(index)", "phone": String(format: "+21355%07d", index + 1), "email": "m\(index)@example.dz",
                    "neighbourhood": "usto",
                ]
            )
            try #require(made.status == 201, "\(String(decoding: made.data, as: UTF8.self))")
            members.append(uuid)
        }

        var random = SplitMix64(seed: kind == .sqlite ? 47 : 48)
        let plans = ["once", "once", "twice", "late", "never", "wrong_signature", "unsigned"]
        let outcomes = ["paid", "paid", "paid", "paid", "failed", "canceled", "open"]
        var checkouts: [String: String] = [:]  // checkout id → payment id
        var killed: Int?
        let total = 200
        for index in 0..<total {
            if index == total / 3 {
                instances[0].killHard()
                killed = 0
            }
            if index == 2 * total / 3 {
                instances[0] = try Self.instance(deployment, port: ports[0], chargily: chargily, keyFile: keyFile)
                try await instances[0].waitUntilReady()
                killed = nil
            }
            let serving = instances.indices.filter { $0 != killed }
            let instance = instances[serving[Int(random.next() % UInt64(serving.count))]]
            let member = members[Int(random.next() % UInt64(members.count))]
            let key = UUID().uuidString
            let months = Int(random.next() % 3) + 1
            let ask = {
                try await instance.request(
                    "POST",
                    "/v1/members/\(member)/checkouts",
                    secret: deployment.backend,
                    json: ["months": months],
                    headers: ["Idempotency-Key": key],
                    as: PaymentBody.self
                )
            }
            let made = try await ask()
            let payment = try #require(made.body, "checkout \(index): \(made.status)")
            #expect(made.status == 201 && payment.amount_dzd == 300 * months && payment.status == "pending")
            if random.next() % 8 == 0 {
                let again = try await ask()
                #expect(again.body?.id == payment.id && again.body?.checkout_id == payment.checkout_id, "a retry answers the same checkout")
            }
            let checkout = try #require(payment.checkout_id)
            checkouts[checkout] = payment.id
            let outcome = outcomes[Int(random.next() % UInt64(outcomes.count))]
            guard outcome != "open" else { continue }
            try await chargily.plan(["webhook": plans[Int(random.next() % UInt64(plans.count))], "late_ms": 300])
            try await chargily.pay(checkout, outcome: outcome)
            switch random.next() % 6 {
            case 0: try await chargily.control("POST", "checkouts/\(checkout)/replay")
            case 1 where outcome == "paid":
                try await chargily.control("POST", "checkouts/\(checkout)/send", ["type": "checkout.failed", "status_in_data": "failed"])
            default: break
            }
        }

        // Let the late webhooks land and the reconcilers read back what no webhook said.
        let standIn = try await chargily.checkouts()
        #expect(standIn.count == total)
        let paidAtChargily = Set(standIn.filter { $0.value.status == "paid" }.keys)
        var payments: [PaymentBody] = []
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            payments = try #require(
                try await instances[1].request("GET", "/v1/payments?limit=1000", secret: deployment.admin, as: PaymentListBody.self).body
            ).payments
            if Set(payments.filter { $0.status == "paid" }.compactMap(\.checkout_id)) == paidAtChargily { break }
            try await Task.sleep(for: .milliseconds(500))
        }
        // What was said of a paid checkout not paid here, for the failure's message.
        var unexplained: [String] = []
        for missing in paidAtChargily.subtracting(payments.filter { $0.status == "paid" }.compactMap(\.checkout_id)) {
            let events = try await instances[1].request("GET", "/v1/payments/events?checkout_id=\(missing)", secret: deployment.admin)
            unexplained.append("\(missing): \(String(decoding: events.data, as: UTF8.self))")
        }
        #expect(payments.count == total)
        let paidHere = payments.filter { $0.status == "paid" }
        #expect(Set(paidHere.compactMap(\.checkout_id)) == paidAtChargily, "every paid checkout, and no other, is paid here: \(unexplained)")
        #expect(!paidAtChargily.isEmpty && paidAtChargily.count < total)
        for payment in payments {
            #expect(checkouts[payment.checkout_id ?? ""] == payment.id)
            #expect(payment.amount_dzd == standIn[payment.checkout_id ?? ""]?.amount)
        }

        // Each paid checkout is exactly one period, online (in_app), of its months; nothing else was sold.
        var periods: [PeriodBody] = []
        for member in members {
            let subscription = try await instances[1].request(
                "GET",
                "/v1/members/\(member)/subscription",
                secret: deployment.backend,
                as: SubscriptionBody.self
            )
            periods += try #require(subscription.body).periods
        }
        #expect(periods.count == paidHere.count)
        #expect(Set(periods.map(\.id)) == Set(paidHere.compactMap(\.period_id)))
        #expect(periods.allSatisfy { $0.source == "in_app" && $0.vendor_id == nil && $0.cancelled_at == nil })
        let monthsByPeriod = Dictionary(uniqueKeysWithValues: periods.map { ($0.id, $0.months) })
        #expect(paidHere.allSatisfy { monthsByPeriod[$0.period_id ?? ""] == $0.months })
        let attention = try await instances[1].request(
            "GET",
            "/v1/payments/events?attention=true",
            secret: deployment.admin,
            as: PaymentEventListBody.self
        )
        #expect(attention.body?.events.isEmpty == true, "\(attention.body?.events ?? [])")
        // The console's figures agree with Chargily's own record.
        let cookie = try await instances[0].consoleCookie(adminSecret: deployment.admin)
        let panel = try await instances[0].request("GET", "/console/api/payments", headers: ["Cookie": cookie])
        #expect(panel.status == 200, "\(panel.body)")
        #expect(panel.body["paid"] as? Int == paidAtChargily.count)
        #expect(panel.body["paid_dzd"] as? Int == paidAtChargily.map { standIn[$0]!.amount }.reduce(0, +))
        let byStatus = panel.body["by_status"] as? [[String: Any]] ?? []
        #expect(byStatus.map { $0["count"] as? Int ?? 0 }.reduce(0, +) == total)
        #expect((panel.body["attention"] as? [Any])?.isEmpty == true)
        // The forged and unsigned deliveries were refused before anything was read.
        let refused = chargily.deliveries.filter { ["wrong", "none"].contains($0["signature"] as? String) }
        #expect(refused.allSatisfy { [401, 403, nil].contains($0["status"] as? Int) }, "\(refused)")
    }

    /// The team's side, as an operator runs it from the unit's configuration file: a paid checkout whose webhook
    /// never came is read back and sold by `peez payments reconcile`, shown by `show`, and its refund (made at
    /// Chargily) recorded by `refund` as a cancellation naming the payment in the audit trail.
    @Test func theTeamReconcilesInspectsAndRecordsARefundFromTheCommandLine() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let deployment = try await Self.deployment(.sqlite, folder: folder)
        let chargily = try ChargilyStandIn(folder: folder)
        defer { chargily.stop() }
        try await chargily.plan(["webhook": "never"])
        let keyFile = folder.file("chargily.key")
        try Data(chargily.secretKey.utf8).write(to: URL(fileURLWithPath: keyFile))
        chmod(keyFile, 0o600)
        let port = TestPorts.unused()
        let config = folder.file("peez.env")
        try Data(
            """
            # as /etc/peez/peez.env
            PEEZ_DATABASE=\(folder.file("ledger.sqlite"))
            PEEZ_SIGNING_KEY=\(folder.file("keys/signing-key.pem"))
            PEEZ_PUBLISHED_KEYS=\(folder.file("published"))
            PEEZ_CHARGILY_MODE=test
            PEEZ_CHARGILY_SECRET_KEY=\(keyFile)
            PEEZ_CHARGILY_API_URL=\(chargily.apiURL)
            PEEZ_CHARGILY_SUCCESS_URL=https://peez.dz/paid
            PEEZ_PUBLIC_URL=http://127.0.0.1:\(port)

            """.utf8
        ).write(to: URL(fileURLWithPath: config))
        let service = try ServiceProcess(arguments: ["--config", config], port: port)
        defer { service.killHard() }
        try await service.waitUntilReady()
        let member = UUID().uuidString.lowercased()
        let made = try await service.request(
            "POST",
            "/v1/members",
            secret: deployment.backend,
            json: ["uuid": member, "name": "Membre", "phone": "+213550000009", "email": "m9@example.dz", "neighbourhood": "usto"]
        )
        try #require(made.status == 201)
        let payment = try #require(
            try await service.request(
                "POST",
                "/v1/members/\(member)/checkouts",
                secret: deployment.backend,
                json: ["months": 3, "payment_method": "cib", "locale": "fr"],
                headers: ["Idempotency-Key": "app-1"],
                as: PaymentBody.self
            ).body
        )
        let checkout = try #require(payment.checkout_id)
        try await chargily.pay(checkout)

        let pending = try await PeezCommand.run(["payments", "list", "--status", "pending", "--config", config])
        #expect(pending.status == 0 && pending.standardOutput.contains(payment.id), "\(pending.standardOutput)\(pending.standardError)")
        let reconciled = try await PeezCommand.run(["payments", "reconcile", "--config", config])
        #expect(
            reconciled.status == 0 && reconciled.standardOutput.contains("\(checkout)  → sold"),
            "\(reconciled.standardOutput)\(reconciled.standardError)"
        )
        let again = try await PeezCommand.run(["payments", "reconcile", "--config", config])
        #expect(again.standardOutput.contains("0 payment(s) read back"), "a settled payment is not read back again: \(again.standardOutput)")
        let shown = try await PeezCommand.run(["payments", "show", checkout, "--config", config])
        #expect(shown.status == 0 && shown.standardOutput.contains("paid") && shown.standardOutput.contains("sold period"), "\(shown.standardOutput)")
        let sold = try #require(try await service.request("GET", "/v1/payments/\(payment.id)", secret: deployment.backend, as: PaymentBody.self).body)
        #expect(sold.status == "paid" && sold.months == 3 && sold.amount_dzd == 900)

        let refunded = try await PeezCommand.run(["payments", "refund", payment.id, "--config", config])
        #expect(refunded.status == 0, "\(refunded.standardError)")
        let subscription = try #require(
            try await service.request("GET", "/v1/members/\(member)/subscription", secret: deployment.backend, as: SubscriptionBody.self).body
        )
        #expect(subscription.periods.count == 1 && subscription.periods.first?.cancelled_at != nil && subscription.coverage.status != "active")
        let twice = try await PeezCommand.run(["payments", "refund", payment.id, "--config", config])
        #expect(twice.status != 0, "a refund is recorded once")
        let audit = try await service.request("GET", "/v1/audit", secret: deployment.admin)
        let trail = String(decoding: audit.data, as: UTF8.self)
        #expect(trail.contains("refund of online payment \(payment.id)") && trail.contains("payment.paid"), "\(trail.prefix(2_000))")
        let attention = try await PeezCommand.run(["payments", "events", "--attention", "--config", config])
        #expect(attention.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "nothing")
    }
}
