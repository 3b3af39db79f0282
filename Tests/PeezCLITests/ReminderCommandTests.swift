import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `peez remind run` as real processes against a Standard Webhooks receiver written from the specification
/// (Tests/Reminders/receiver.py), which checks every signature and counts repeats by webhook-id.
@Suite("peez remind", .serialized)
struct ReminderCommandTests {
    static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwV2VJ4fZ8Wm0="
    static let now = "2026-12-20T09:00:00+01:00"

    /// The receiver, on a port it picked.
    final class Receiver: @unchecked Sendable {
        let process: ChildProcess
        let port: Int
        /// Kept open while the receiver runs: it would die of a closed pipe at its next line.
        private let output = Pipe()

        init(failRate: Double = 0, delayMilliseconds: Int = 0, log: String? = nil) throws {
            process = try ChildProcess(
                "python3",
                [
                    repositoryRoot.appendingPathComponent("Tests/Reminders/receiver.py").path, "--port", "0",
                    "--secret", ReminderCommandTests.secret, "--fail-rate", String(failRate), "--seed", "7",
                    "--delay-ms", String(delayMilliseconds),
                ] + (log.map { ["--log", $0] } ?? []),
                standardOutput: .pipe(output)
            )
            let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
            guard let port = Int(line.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") else {
                process.terminate()
                throw ServiceError("the receiver did not start: \(line)")
            }
            self.port = port
        }

        var url: String { "webhook:http://127.0.0.1:\(port)/hooks/reminders" }

        func stats() async throws -> [String: Int] {
            let request = URLRequest(
                url: URL(string: "http://127.0.0.1:\(port)/stats")!,
                cachePolicy: .reloadIgnoringLocalCacheData,
                timeoutInterval: 10
            )
            let (data, _) = try await URLSession.shared.data(for: request)
            return try JSONSerialization.jsonObject(with: data) as? [String: Int] ?? [:]
        }

        func stop() { process.kill9() }

        deinit { stop() }
    }

    /// The ledger options of a fresh SQLite file, or of a fresh PostgreSQL database.
    static func ledger(_ folder: TemporaryFolder, postgres: Bool) async throws -> [String] {
        guard postgres else { return ["--database", folder.file("ledger.sqlite")] }
        let base = try #require(ProcessInfo.processInfo.environment["PEEZ_TEST_DATABASE_URL"])
        let name = "peez_remind_" + UUID().uuidString.prefix(8).lowercased()
        let created = try await ProcessRunner.run(["psql", base, "-qc", "CREATE DATABASE \(name)"])
        guard created.status == 0 else { throw ServiceError("cannot create a database: \(created.standardError)") }
        let url = String(base[..<base.lastIndex(of: "/")!]) + "/" + name
        return ["--database-url", url, "--database-connections", "2"]
    }

    static func remind(_ ledger: [String], _ arguments: [String]) async throws -> ProcessResult {
        try await ProcessRunner.run(["PEEZ_WEBHOOK_SECRETS=\(secret)", PeezCommand.binary, "remind"] + arguments + ledger, timeout: 120)
    }

    static func runProcess(_ ledger: [String], _ arguments: [String], errors: String? = nil) throws -> ChildProcess {
        try ChildProcess(
            PeezCommand.binary,
            ["remind", "run"] + arguments + ledger,
            environment: ["PEEZ_WEBHOOK_SECRETS": secret, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"],
            standardError: errors.map { .file($0) } ?? .null
        )
    }

    /// `delivered N` from `peez remind status`, and whether anything is still open.
    static func delivered(_ ledger: [String]) async throws -> (delivered: Int, open: Int) {
        let status = try await remind(ledger, ["status"])
        let words = status.standardOutput.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        func count(_ state: String) -> Int { words.firstIndex(of: state).flatMap { Int(words[$0 + 1]) } ?? -1 }
        return (count("delivered"), count("pending") + count("unknown"))
    }

    /// Kills `run` once `file` has `target` lines, unless it ended before; true if it was killed. It watches from a
    /// thread of its own: other tests may hold the cooperative pool's few threads for seconds, long enough for a
    /// run to deliver everything before a task polling there would see the count.
    static func killMidway(_ run: ChildProcess, onceLinesIn file: String, reach target: Int) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread {
                while run.isRunning, lineCount(file) < target { usleep(2_000) }
                let killed = run.isRunning
                if killed { run.signal(SIGKILL) }
                run.waitUntilExit()
                continuation.resume(returning: killed)
            }.start()
        }
    }

    /// Complete lines in a file (0 if there is none yet).
    static func lineCount(_ file: String) -> Int {
        guard let data = FileManager.default.contents(atPath: file) else { return 0 }
        return data.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
    }

    /// Two runs started at the same moment, which must both end well; then what the ledger and the receiver say.
    static func twoRunsAtOnce(
        _ ledger: [String],
        _ options: [String],
        in folder: TemporaryFolder,
        receiver: Receiver
    ) async throws -> (delivered: Int, open: Int, stats: [String: Int]) {
        let runs = try (0..<2).map { try runProcess(ledger, options, errors: folder.file("run\($0).log")) }
        for run in runs { await run.exited() }
        let logs = try (0..<2).map { try String(contentsOfFile: folder.file("run\($0).log"), encoding: .utf8) }
        #expect(runs.allSatisfy { $0.terminationStatus == 0 }, "\(logs)")
        let (delivered, open) = try await delivered(ledger)
        return (delivered, open, try await receiver.stats())
    }

    static func seed(_ ledger: [String], members: Int, now: String = now) async throws {
        let seeded = try await ProcessRunner.run(
            [PeezCommand.binary, "dev", "seed", "--members", String(members), "--spread-days", "8", "--now", now] + ledger
        )
        guard seeded.status == 0 else { throw ServiceError("seed failed: \(seeded.standardError)") }
    }

    @Test func aRunKilledAtSeveralPointsAndStartedAgainDeliversEveryReminderOnce() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let ledger = try await Self.ledger(folder, postgres: false)
        try await Self.seed(ledger, members: 400)
        let received = folder.file("received.jsonl")
        let receiver = try await onOwnThread { try Receiver(delayMilliseconds: 40, log: received) }
        defer { receiver.stop() }
        let options = [
            "--sink", receiver.url, "--now", Self.now, "--concurrency", "4", "--batch-size", "20", "--lease-seconds", "4",
            "--timeout", "1", "--max-wait", "5",
        ]
        // Each run is killed once the receiver has taken a few more deliveries: in the middle of delivering.
        var kills = 0
        for (round, more) in [5, 40, 40].enumerated() {
            let target = Self.lineCount(received) + more
            let run = try Self.runProcess(ledger, options, errors: folder.file("run\(round).log"))
            let killed = await Self.killMidway(run, onceLinesIn: received, reach: target)
            kills += killed ? 1 : 0
            let log = try String(contentsOfFile: folder.file("run\(round).log"), encoding: .utf8)
            // Killed by the test, or ended by itself having delivered everything: never a crash or an error.
            let killedByUs = killed && run.endedBySignal && run.terminationStatus == 128 + SIGKILL
            #expect(
                killedByUs || run.terminationStatus == 0,
                "round \(round): killed \(killed), status \(run.terminationStatus), received \(Self.lineCount(received)) of \(target)\n\(log)"
            )
        }
        #expect(kills == 3, "the runs were killed in the middle")
        // Each run's clock starts at --now, so the killed runs' leases end up to their run time after it. The
        // last run starts its clock five minutes on, as a real clock would be past those leases.
        let last = try await Self.remind(ledger, ["run"] + options + ["--now", "2026-12-20T09:05:00+01:00"])
        #expect(last.status == 0, "\(last.standardError)")
        let (delivered, open) = try await Self.delivered(ledger)
        let stats = try await receiver.stats()
        #expect(open == 0 && delivered > 0)
        #expect(stats["received"] == delivered, "every reminder arrived: \(stats), \(delivered) delivered")
        #expect(stats["bad_signatures"] == 0)
        // A kill between a delivery and its record can repeat what was in flight: at most a batch a kill.
        #expect((stats["duplicates"] ?? 0) <= kills * 20, "\(stats)")
        await #expect(try Self.remind(ledger, ["run", "--dry-run", "--now", Self.now]).standardError.contains("0 reminder(s) would be recorded"))
    }

    @Test(arguments: [false, true])
    func twoRunsStartedTogetherDeliverNothingTwice(postgres: Bool) async throws {
        if postgres && ProcessInfo.processInfo.environment["PEEZ_TEST_DATABASE_URL"] == nil { return }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let ledger = try await Self.ledger(folder, postgres: postgres)
        try await Self.seed(ledger, members: 300)
        let receiver = try await onOwnThread { try Receiver(delayMilliseconds: 5) }
        defer { receiver.stop() }
        let options = ["--sink", receiver.url, "--now", Self.now, "--concurrency", "4", "--batch-size", "10"]
        let (delivered, open, stats) = try await Self.twoRunsAtOnce(ledger, options, in: folder, receiver: receiver)
        #expect(open == 0 && delivered > 0 && stats["received"] == delivered, "\(stats), \(delivered)")
        #expect(stats["duplicates"] == 0, "two runs at once never deliver one reminder twice: \(stats)")
    }

    /// A slow receiver makes each batch (and the next one, leased while it is delivered) outlast the lease it
    /// was leased for: the runs renew their leases as they go, and never take over one another's reminders.
    @Test(arguments: [false, true])
    func twoRunsWhoseBatchesOutlastTheirLeaseDeliverNothingTwice(postgres: Bool) async throws {
        if postgres && ProcessInfo.processInfo.environment["PEEZ_TEST_DATABASE_URL"] == nil { return }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let ledger = try await Self.ledger(folder, postgres: postgres)
        // The runs keep the real clock, as in production: two runs given --now would each start their clock from
        // it when they start, up to a second apart, and see each other's leases end that much early.
        try await Self.seed(ledger, members: 400, now: String(Int64(Date().timeIntervalSince1970)))
        let receiver = try await onOwnThread { try Receiver(delayMilliseconds: 100) }
        defer { receiver.stop() }
        // 100 reminders two at a time, 0.1 s each: 5 s a batch, 10 s for the batch leased meanwhile; leases of 8 s.
        let options = ["--sink", receiver.url, "--concurrency", "2", "--batch-size", "100", "--lease-seconds", "8", "--timeout", "1"]
        let (delivered, open, stats) = try await Self.twoRunsAtOnce(ledger, options, in: folder, receiver: receiver)
        #expect(open == 0 && delivered > 250 && stats["received"] == delivered, "\(stats), \(delivered)")
        #expect(stats["duplicates"] == 0, "a lease is renewed before it could lapse under a delivery: \(stats)")
    }

    @Test func aLeaseTooShortForTheSinksLongestDeliveryIsRefused() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let ledger = try await Self.ledger(folder, postgres: false)
        let webhook = try await Self.remind(ledger, ["run", "--sink", "webhook:http://127.0.0.1:9/hooks", "--timeout", "5", "--lease-seconds", "7"])
        #expect(webhook.status == 2 && webhook.standardError.contains("--lease-seconds must be at least 8 for this sink"), "\(webhook.standardError)")
        let jsonl = try await Self.remind(ledger, ["run", "--sink", "jsonl:" + folder.file("reminders.jsonl"), "--lease-seconds", "6"])
        #expect(jsonl.status == 2 && jsonl.standardError.contains("--lease-seconds must be at least 7 for this sink"), "\(jsonl.standardError)")
    }

    @Test func aReceiverFailingHalfItsRequestsStillGetsEveryReminder() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let ledger = try await Self.ledger(folder, postgres: false)
        try await Self.seed(ledger, members: 200)
        let receiver = try await onOwnThread { try Receiver(failRate: 0.5) }
        defer { receiver.stop() }
        let run = try await Self.remind(
            ledger,
            ["run", "--sink", receiver.url, "--now", Self.now, "--retry-schedule", "0,1", "--max-attempts", "30"]
        )
        #expect(run.status == 0, "\(run.standardError)")
        let (delivered, open) = try await Self.delivered(ledger)
        let stats = try await receiver.stats()
        #expect(open == 0 && stats["received"] == delivered && (stats["failed_on_purpose"] ?? 0) > 0, "\(stats)")
        #expect(stats["duplicates"] == 0)
    }

    /// The pool alone would retry for ever: a run from a timer would hang, logging, instead of failing.
    @Test func aPostgreSQLServerThatCannotBeUsedFailsTheCommandAtOnceInOneSentence() async throws {
        var urls = [("postgres://peez@127.0.0.1:\(TestPorts.unused())/peez", "Connection refused")]
        if let base = ProcessInfo.processInfo.environment["PEEZ_TEST_DATABASE_URL"] {
            urls.append((String(base[..<base.lastIndex(of: "/")!]) + "/peez_no_such_database", "\"peez_no_such_database\" does not exist"))
        }
        for (url, reason) in urls {
            let started = ContinuousClock.now
            let status = try await Self.remind(["--database-url", url], ["status"])
            #expect(status.status != 0 && ContinuousClock.now - started < .seconds(10), "\(url)")
            let lines = status.standardError.split(separator: "\n")
            #expect(
                lines.count == 1 && lines[0].hasPrefix("Error: cannot use PostgreSQL at 127.0.0.1:") && lines[0].hasSuffix(reason),
                "\(status.standardError)"
            )
        }
    }

    @Test func theJSONLinesSinkWritesEachReminderOnceInTheMembersLanguage() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let ledger = try await Self.ledger(folder, postgres: false)
        try await Self.seed(ledger, members: 100)
        let preview = try await Self.remind(ledger, ["run", "--dry-run", "--now", Self.now])
        let due = preview.standardOutput.split(separator: "\n").count
        #expect(due > 0 && preview.standardError.contains("\(due) reminder(s) would be recorded"))
        let lines = folder.file("reminders.jsonl")
        await #expect(try Self.remind(ledger, ["run", "--sink", "jsonl:" + lines, "--now", Self.now]).status == 0)
        await #expect(try Self.remind(ledger, ["run", "--sink", "jsonl:" + lines, "--now", Self.now]).status == 0, "a second run finds nothing new")
        let written = try String(contentsOfFile: lines, encoding: .utf8).split(separator: "\n")
        #expect(written.count == due)
        // The wire itself: the reminder messages a receiver gets (Standard Webhooks JSON), read as a receiver would.
        let messages = try written.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:] }
        let data = messages.compactMap { $0["data"] as? [String: Any] }
        #expect(Set(data.compactMap { $0["reminder_id"] as? String }).count == due)
        // Each text says the time left when it was sent, by Algiers calendar days to the last day covered.
        var algiers = Calendar(identifier: .gregorian)
        algiers.timeZone = TimeZone(identifier: "Africa/Algiers")!
        let sentAt = try #require(ISO8601DateFormatter().date(from: Self.now))
        var checked: Set<String> = []
        for message in data where message["threshold"] as? String != "ended" {
            let end = try #require(ISO8601DateFormatter().date(from: message["coverage_end"] as? String ?? ""))
            let days = algiers.dateComponents([.day], from: algiers.startOfDay(for: sentAt), to: algiers.startOfDay(for: end.addingTimeInterval(-1)))
                .day!
            let (french, arabic): (String, String)
            switch days {
            case ...0: (french, arabic) = ("expire aujourd'hui", "PEEZ اليوم")
            case 1: (french, arabic) = ("expire demain", "PEEZ غدًا")
            case 2: (french, arabic) = ("expire dans 2 jours", "خلال يومين")
            default: (french, arabic) = ("expire dans \(days) jours", "خلال \(days) أيام")
            }
            let body = message["body"] as? String ?? ""
            #expect(body.contains(message["language"] as? String == "ar" ? arabic : french), "\(days) day(s) left: \(body)")
            checked.insert("\(message["language"] ?? "")-\(days)")
        }
        #expect(checked.contains { $0.hasPrefix("ar-") } && checked.contains { $0.hasPrefix("fr-") }, "both languages: \(checked)")
        #expect(messages.allSatisfy { $0["type"] as? String == "membership.renewal_reminder" })
    }

    @Test func aRunOfAnotherChannelSaysHowManyMembersItLeftToTheirWalletPasses() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let ledger = try await Self.ledger(folder, postgres: false)
        try await Self.seed(ledger, members: 40)
        let due = try await Self.remind(ledger, ["run", "--dry-run", "--now", Self.now]).standardOutput.split(separator: "\n")
        let uuids = due.compactMap { line -> String? in
            // The wire itself: the JSON Lines sink's messages, read as a receiver would.
            ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]).flatMap {
                ($0["data"] as? [String: Any])?["member_uuid"] as? String
            }
        }
        try #require(uuids.count >= 2, "\(due)")
        // Two of the members due have an Apple Wallet pass on a device (as downloads and registrations leave it).
        let seeded = try await ProcessRunner.run(
            [
                "python3", "-c",
                """
                import sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                for index, uuid in enumerate(sys.argv[2:]):
                    db.execute("INSERT INTO wallet_passes (member_uuid, token_hash, issued_at) VALUES (?, 'x', 0)", (uuid.upper(),))
                    db.execute("INSERT INTO wallet_registrations (device_id, member_uuid, push_token, registered_at) VALUES (?, ?, 'ab', 0)",
                               ("d%d" % index, uuid.upper()))
                db.commit()
                """,
                folder.file("ledger.sqlite"),
            ] + uuids.prefix(2)
        )
        #expect(seeded.status == 0, "\(seeded.standardError)")
        let run = try await Self.remind(ledger, ["run", "--sink", "jsonl:" + folder.file("reminders.jsonl"), "--now", Self.now])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(
            run.standardError.contains(
                "2 member(s) with an Apple Wallet pass on a device are due a reminder through it: run peez remind run --channel wallet"
            ),
            "\(run.standardError)"
        )
    }
}
