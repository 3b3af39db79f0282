public import Foundation
import PeezAPI
import TestSupport

/// One seeded run: the service on a ledger of its own (one instance on an SQLite file, or two instances on a
/// PostgreSQL server of the run's own), shops selling at their counters with retries, the team cancelling, and
/// faults throughout (see ``Faults``); then the history and the ledger it left are checked (see ``LedgerChecker``).
///
/// The seed fixes the workload (who sells what to whom, with which key, when the team cancels) and the faults'
/// schedule; the interleaving of requests and kills on a real machine is not replayed exactly, so a violation is
/// looked for again by running its seed again, and the history file shows the interleaving that broke it.
public struct SoakRun: Sendable {
    public var seed: UInt64
    public var store: SoakStore
    public var duration: Duration
    public var shops = 4
    public var members = 12
    /// The `peez` binary to run.
    public var peez: String
    /// Where the run's ledger, logs and history go: emptied first (a seed run again starts afresh).
    public var folder: String

    public init(seed: UInt64, store: SoakStore = .sqlite, duration: Duration, peez: String, folder: String) {
        self.seed = seed
        self.store = store
        self.duration = duration
        self.peez = peez
        self.folder = folder
    }

    /// Runs it and checks the result.
    public func run() async throws -> SoakReport {
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let deployment = try Deployment(peez: peez, folder: folder, store: store)
        defer { deployment.remove() }
        try await deployment.prepare(random: .stream(0xDB, of: seed))
        let instances = (0..<(store == .sqlite ? 1 : 2)).map { ServiceUnderTest(deployment, name: "instance-\($0)") }
        // The clients reach each instance through a faulty proxy; the run itself (set-up, the final reads) directly.
        let proxies = try instances.enumerated().map { index, instance in
            try FaultyProxy(name: "proxy \(instance.name)", target: instance.port, odds: .clients, random: .stream(0x9A0 + UInt64(index), of: seed))
        }
        defer { for proxy in proxies { proxy.stop() } }
        for (instance, proxy) in zip(instances, proxies) {
            instance.publicPort = proxy.port
            try await instance.start()
        }
        let history = History()
        let receiver = try ReminderReceiver(folder: folder, seed: seed)
        defer { receiver.stop() }
        let reminding = Reminding(
            seed: seed,
            peez: peez,
            ledgerArguments: deployment.instanceLedgerArguments,
            settlingLedgerArguments: deployment.ledgerArguments,
            folder: folder,
            history: history,
            receiver: receiver
        )
        let clients = proxies.map { SoakClient(port: $0.port) }
        let client = SoakClient(port: instances[0].port)
        let workload = try await Workload.setUp(
            seed: seed,
            client: client,
            clients: clients,
            adminSecret: deployment.adminSecret,
            history: history,
            shops: shops,
            members: members,
            chargily: SoakClient(port: deployment.chargily.port)
        )
        let deadline = ContinuousClock.now + duration
        // Every client of the run, each until the deadline.
        let shopClients: [@Sendable () async -> Void] = (0..<shops).flatMap { shop -> [@Sendable () async -> Void] in
            [{ await workload.sell(at: shop, until: deadline) }, { await workload.reportScans(at: shop, until: deadline) }]
        }
        let appClients: [@Sendable () async -> Void] =
            (0..<2).map { reader in { await workload.fetchCards(reader: reader, until: deadline) } } + [
                { await workload.useWallet(until: deadline, apns: deployment.apns) },
                { await workload.saveToGoogleWallet(until: deadline, google: deployment.google) },
            ]
        let teamClients: [@Sendable () async -> Void] = [
            { await workload.cancel(until: deadline) }, { await workload.changeMembers(until: deadline) },
            { await workload.manageCredentials(until: deadline) }, { await workload.sellWithRetiredKeys(until: deadline) },
            { await workload.payOnline(until: deadline) }, { await reminding.run(until: deadline) }, { await workload.remit(until: deadline) },
        ]
        let faults = try await withThrowingTaskGroup(of: [String: Int].self) { group in
            for work in shopClients + appClients + teamClients {
                group.addTask {
                    await work()
                    return [:]
                }
            }
            group.addTask { try await Faults(seed: seed, deployment: deployment, instances: instances, history: history).inject(until: deadline) }
            return try await group.reduce(into: [:]) { total, counts in total.merge(counts, uniquingKeysWith: +) }
        }
        .merging((proxies + [deployment.databaseProxy].compactMap { $0 }).flatMap(\.injected), uniquingKeysWith: +)
        await Self.fetchLastCards(workload, instances: instances, history: history)
        await reminding.settle()
        var final = try await Self.finalReads(workload, client: client, deployment: deployment, history: history)
        final.reminders = try await Self.reminderReads(receiver, deployment: deployment)
        final.wallet = try await Self.walletReads(workload, client: client, deployment: deployment, history: history)
        final.googleWallet = try await Self.googleWalletReads(workload, client: client, deployment: deployment, history: history)
        // The ledger as the service reads it once the faults are over.
        var ledger: [SubscriptionBody] = []
        for member in workload.members + workload.reminded {
            ledger.append(
                try await client.required("GET", "/v1/members/\(member.uuid)/subscription", secret: deployment.adminSecret, as: SubscriptionBody.self)
            )
        }
        let operations = history.all
        let historyFile = folder + "/history.jsonl"
        try history.write(to: historyFile)
        // The ledger as read, beside the history, for a person looking into a violation.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(ledger).write(to: URL(fileURLWithPath: folder + "/ledger.json"))
        // The cards answered from a state a revoking change had left, as a counter would judge them now.
        var verdicts: [String: String] = [:]
        for (fetch, _) in LedgerChecker(history: operations, ledger: ledger).staleFetches {
            guard let token = fetch.token, let id = fetch.tokenID, verdicts[id] == nil else { continue }
            verdicts[id] = try await client.required(
                "POST",
                "/v1/verify",
                secret: deployment.adminSecret,
                json: ["token": token],
                as: VerifyBody.self
            ).verdict
        }
        for instance in instances { await instance.stop() }
        let (violations, checks, lostAnswersStored) = LedgerChecker(history: operations, ledger: ledger, verdicts: verdicts, final: final).check()
        return SoakReport(
            seed: seed,
            store: store,
            duration: duration,
            operations: operations,
            faults: faults,
            checks: checks,
            lostAnswersStored: lostAnswersStored,
            violations: violations,
            historyFile: historyFile
        )
    }
}

/// What a run did and found, as a person reads it.
public struct SoakReport: Sendable {
    public let seed: UInt64
    public let store: SoakStore
    public let duration: Duration
    public let operations: [HistoryEntry]
    /// How many faults of each kind were injected.
    public let faults: [String: Int]
    public let checks: Int
    /// How many sales whose answer was lost (a kill, a timeout) the ledger holds: each at most once.
    public let lostAnswersStored: Int
    public let violations: [Violation]
    public let historyFile: String

    /// One paragraph: operations by kind and outcome, faults, checks, violations.
    public var summary: String {
        var lines: [String] = []
        let made = operations.filter { $0.kind != .fault }
        let counts = Dictionary(grouping: made) { "\($0.kind.rawValue) \($0.outcome.rawValue)" }.mapValues(\.count)
        lines.append(
            "seed \(seed) on \(store.rawValue): \(made.count) operations (\(counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))), "
                + "\(lostAnswersStored) of the sales whose answer was lost stored; faults: "
                + "\(faults.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")); \(checks) invariant checks, "
                + "\(violations.count) violations; history \(historyFile)"
        )
        for violation in violations {
            lines.append("VIOLATION (\(violation.invariant)): \(violation.message)")
            lines.append("  the history that shows it:")
            lines.append(contentsOf: window(for: violation).map { "    " + $0 })
            lines.append("  replay: make soak STORES=\(store.rawValue) SEEDS=\(seed) MINUTES=\(Self.minutes(duration))")
        }
        return lines.joined(separator: "\n")
    }

    /// The operations on the violation's member, and the faults among them: the smallest part of the history
    /// that shows it (at most 60 lines).
    func window(for violation: Violation) -> [String] {
        let mine = operations.filter { $0.kind != .fault && (violation.member == nil || $0.member == violation.member) }
        guard let first = mine.map(\.invoked).min(), let last = mine.map(\.completed).max() else { return [] }
        let faults = operations.filter { $0.kind == .fault && $0.invoked >= first && $0.invoked <= last }
        return (mine + faults).sorted { $0.invoked < $1.invoked }.suffix(60).map(Self.line)
    }

    static func line(_ operation: HistoryEntry) -> String {
        let time = String(format: "%8.3f–%8.3f", operation.invoked, operation.completed)
        switch operation.kind {
        case .fault: return "\(time) \(operation.client) \(operation.detail ?? "")"
        case .sale:
            return "\(time) \(operation.client) sale \(operation.months ?? 0) month(s) key \(operation.idempotencyKey ?? "") → "
                + "\(operation.outcome.rawValue) \(operation.period ?? "") [\(operation.attempts.joined(separator: ", "))]"
        case .cardFetch:
            return
                "\(time) \(operation.client) card → \(operation.outcome.rawValue) \(operation.tokenID ?? "") issued \(operation.issuedAt ?? "") "
                + "name \(operation.value ?? "") key \(operation.deviceKey ?? "") from instance \(operation.instance ?? 0) [\(operation.attempts.joined(separator: ", "))]"
        case .cancellation:
            return
                "\(time) \(operation.client) cancel \(operation.period ?? "") → \(operation.outcome.rawValue), cards issued before "
                + "\(operation.revokedBefore ?? "?") revoked [\(operation.attempts.joined(separator: ", "))]"
        case .rename, .deviceKey:
            return "\(time) \(operation.client) \(operation.kind == .rename ? "rename to" : "phone key") \(operation.value ?? "") → "
                + "\(operation.outcome.rawValue) on instance \(operation.instance ?? 0) [\(operation.attempts.joined(separator: ", "))]"
        case .credentialRevoke, .credentialRotate:
            return
                "\(time) \(operation.client) \(operation.kind == .credentialRevoke ? "revoke" : "rotate") credential \(operation.credential ?? "") → "
                + "\(operation.outcome.rawValue) on instance \(operation.instance ?? 0)"
                + (operation.expiresAt.map { ", old secret until \(String(format: "%.3f", $0))" } ?? "")
                + " [\(operation.attempts.joined(separator: ", "))]"
        case .enrolment:
            return "\(time) \(operation.client) enrol with code …\(operation.code?.suffix(4) ?? "") → \(operation.outcome.rawValue) "
                + "credential \(operation.credential ?? "none") on instance \(operation.instance ?? 0) [\(operation.attempts.joined(separator: ", "))]"
        case .scanReport:
            return "\(time) \(operation.client) report scans \(operation.entries?.first ?? "")… (\(operation.entries?.count ?? 0)) of counter "
                + "\(operation.value ?? "") → \(operation.outcome.rawValue), refused \(operation.refusedEntries ?? []) [\(operation.attempts.joined(separator: ", "))]"
        case .remittance:
            return
                "\(time) \(operation.client) remittance \(operation.value ?? "") DZD at shop \(operation.vendor ?? "") key \(operation.idempotencyKey ?? "") → "
                + "\(operation.outcome.rawValue) entry \(operation.detail ?? "none") [\(operation.attempts.joined(separator: ", "))]"
        case .remindRun:
            return "\(time) \(operation.client) remind run at \(operation.value ?? "") → \(operation.outcome.rawValue), \(operation.detail ?? "")"
        case .walletRegister, .walletUnregister, .walletUpdate:
            let action = [.walletRegister: "registers for", .walletUnregister: "unregisters from", .walletUpdate: "fetches after a push"][
                operation.kind
            ]!
            return "\(time) \(operation.client) \(action) the pass of \(operation.member ?? "") (\(operation.value ?? "")) → "
                + "\(operation.outcome.rawValue) [\(operation.attempts.joined(separator: ", "))]"
        case .googleSave:
            return "\(time) \(operation.client) saves the card of \(operation.member ?? "") to Google Wallet (\(operation.value ?? "no object")) → "
                + "\(operation.outcome.rawValue) on instance \(operation.instance ?? 0) [\(operation.attempts.joined(separator: ", "))]"
        case .checkout:
            return "\(time) \(operation.client) checkout \(operation.months ?? 0) month(s) key \(operation.idempotencyKey ?? "") → "
                + "\(operation.outcome.rawValue) payment \(operation.payment ?? "none"), \(operation.value ?? "not finished") (\(operation.detail ?? "")) "
                + "[\(operation.attempts.joined(separator: ", "))]"
        }
    }

    static func minutes(_ duration: Duration) -> String {
        String(format: "%g", Double(duration.components.seconds) / 60)
    }
}
