import Foundation
import PeezBasics
import TestSupport

/// The renewal reminders of a run: `peez remind run` started every few seconds, two at once, each acting at a
/// time 23 to 31 days on (`--now`, the service's own clock setting: the members it was set up with then near the
/// end of their month, or past it), half of them killed with SIGKILL mid-run; delivered as Standard Webhooks to
/// a receiver written from that specification (Tests/Reminders/receiver.py) that refuses a fifth of them with a
/// 500 and counts a repeated webhook-id; then one last run that settles everything.
struct Reminding: Sendable {
    let seed: UInt64
    let peez: String
    /// The ledger through the faulty proxy in front of PostgreSQL, if any.
    let ledgerArguments: [String]
    /// The ledger straight.
    let settlingLedgerArguments: [String]
    let folder: String
    let history: History
    let receiver: ReminderReceiver

    /// The runs until `deadline`.
    func run(until deadline: ContinuousClock.Instant) async {
        var random = SplitMix64.stream(0x4E11, of: seed)
        var count = 0
        while ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(Int.random(in: 2_000...5_000, using: &random)))
            let now = Int64(history.startDate.timeIntervalSince1970) + Int64.random(in: 23 * 86_400...31 * 86_400, using: &random)
            let kills = (0..<2).map { _ in Int.random(in: 0..<2, using: &random) == 0 ? Int.random(in: 50...1_500, using: &random) : nil }
            await withTaskGroup(of: HistoryEntry.self) { group in
                for kill in kills {
                    count += 1
                    let name = "remind-\(count)"
                    group.addTask { await self.remind(at: now, name: name, killAfter: kill) }
                }
                for await operation in group { history.record(operation) }
            }
        }
    }

    /// The last runs, left to finish, on the database straight (the faults are over), started again as the
    /// operator's timer would until one ends with everything delivered (ten at most): the first acting an hour
    /// after the latest time any run acted at (a retry a run scheduled is due by then, or by the next), each next
    /// one three hours later.
    func settle() async {
        let latest = history.all.filter { $0.kind == .remindRun }.compactMap { $0.value.flatMap(Int64.init) }.max()
        var now = (latest ?? Int64(history.startDate.timeIntervalSince1970) + 29 * 86_400) + 3_600
        for attempt in 1...10 {
            let last = await remind(at: now, name: "remind-last-\(attempt)", killAfter: nil, maxWait: 30, ledger: settlingLedgerArguments)
            history.record(last)
            if last.outcome == .ok { return }
            now += 3 * 3_600
        }
    }

    private func remind(at now: Int64, name: String, killAfter milliseconds: Int?, maxWait: Int = 2, ledger: [String]? = nil) async -> HistoryEntry {
        var operation = HistoryEntry(client: name, kind: .remindRun, invoked: history.now(), completed: 0, outcome: .unknown)
        operation.value = String(now)
        do {
            let process = try ChildProcess(
                peez,
                ["remind", "run"] + (ledger ?? ledgerArguments) + [
                    "--sink", "webhook:http://127.0.0.1:\(receiver.port)/hooks/reminders", "--now", String(now), "--max-wait", String(maxWait),
                    "--timeout", "2", "--lease-seconds", "5",
                ],
                environment: ProcessInfo.processInfo.environment.merging(["PEEZ_WEBHOOK_SECRETS": receiver.secret], uniquingKeysWith: { $1 }),
                standardOutput: .file(folder + "/\(name).out"),
                standardError: .file(folder + "/\(name).err")
            )
            if let milliseconds {
                try? await Task.sleep(for: .milliseconds(milliseconds))
                process.kill9()
                operation.detail = "kill -9 after \(milliseconds) ms"
            }
            let status = await process.exited()
            operation.outcome = milliseconds == nil && status == 0 ? .ok : .unknown
            operation.detail = operation.detail ?? "exit status \(status)"
        } catch {
            operation.detail = "not started: \(error)"
        }
        operation.completed = history.now()
        return operation
    }
}

/// The Standard Webhooks receiver of a run (Tests/Reminders/receiver.py), on a port it picked.
final class ReminderReceiver: @unchecked Sendable {
    let process: ChildProcess
    let port: Int
    let secret: String
    let log: String
    /// Kept open while the receiver runs: it would die of a closed pipe at its next line.
    private let output = Pipe()

    init(folder: String, seed: UInt64) throws {
        var random = SplitMix64.stream(0x5EC, of: seed)
        secret = "whsec_" + Data((0..<24).map { _ in UInt8.random(in: 0...255, using: &random) }).base64EncodedString()
        log = folder + "/reminders-received.jsonl"
        let script = repositoryRoot.appendingPathComponent("Tests/Reminders/receiver.py").path
        process = try ChildProcess(
            "python3",
            [
                script, "--port", "0", "--secret", secret, "--fail-rate", "0.2", "--seed", String(seed), "--log", log,
                // The runs act up to 31 days on, and stamp their deliveries with that time.
                "--tolerance", String(40 * 86_400),
            ],
            standardOutput: .pipe(output)
        )
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        guard let port = Int(line.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") else {
            process.kill9()
            throw SoakError("the reminders' receiver did not start: \(line)")
        }
        self.port = port
    }

    /// The ids it took, each once, in the order it first took them.
    var received: [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? String
        }
    }

    func stop() { process.kill9() }
}
