import Foundation
import PeezAPI
import Synchronization
import TestSupport
import Testing

/// A `peez counter` session kept open as a shop keeps it all day, against a real `peez serve`: every verdict
/// uses the newest trust data, a verdict other than VALID shows no coverage, and the screens speak the shop's
/// language.
@Suite("peez counter session")
struct CounterSessionTests {
    static let backend = "peez_backend_DEVELOPMENT_ONLY_not_a_secret"
    static let admin = "peez_admin_DEVELOPMENT_ONLY_not_a_secret"
    static let demoMember = "00000000-0000-4000-8000-000000000001"

    /// A running `peez counter` process fed line by line, its output collected as it comes.
    final class LiveSession: Sendable {
        let process: ChildProcess
        private let input = Pipe()
        private let output = Pipe()
        private let errors = Pipe()
        private let collected = Collected()

        final class Collected: Sendable {
            let texts = Mutex(("", ""))
            func withLock<T>(_ body: (inout (String, String)) -> T) -> T { texts.withLock { body(&$0) } }
        }

        init(_ arguments: [String], environment: [String: String]) throws {
            output.fileHandleForReading.readabilityHandler = { [collected] handle in
                let text = String(decoding: handle.availableData, as: UTF8.self)
                collected.withLock { $0.0 += text }
            }
            errors.fileHandleForReading.readabilityHandler = { [collected] handle in
                let text = String(decoding: handle.availableData, as: UTF8.self)
                collected.withLock { $0.1 += text }
            }
            process = try ChildProcess(
                PeezCommand.binary,
                arguments,
                environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
                standardInput: .pipe(input),
                standardOutput: .pipe(output),
                standardError: .pipe(errors)
            )
        }

        var standardOutput: String { collected.withLock { $0.0 } }
        var standardError: String { collected.withLock { $0.1 } }

        /// Types `line` as a scanner does, without waiting for an answer.
        func type(_ line: String) {
            input.fileHandleForWriting.write(Data((line + "\r\n").utf8))
        }

        /// Types `line` as a scanner does and returns the verdict block it brought (up to its tally line).
        func scan(_ line: String) async throws -> String {
            let before = standardOutput.count
            input.fileHandleForWriting.write(Data((line + "\r\n").utf8))
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline {
                let fresh = String(standardOutput.dropFirst(before))
                if fresh.contains("]\n") { return fresh }
                try await Task.sleep(for: .milliseconds(20))
            }
            throw ServiceError("no verdict for the scan: \(standardOutput)\(standardError)")
        }

        func finish() {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }

    static func enrolledService(_ folder: TemporaryFolder) async throws -> (ServiceProcess, [String: String], String) {
        let service = try ServiceProcess(arguments: ["--development", "--database", folder.file("ledger.sqlite")], port: TestPorts.unused())
        try await service.waitUntilReady()
        let environment = [
            "PEEZ_COUNTER_HOME": folder.file("counter"), "PEEZ_VENDOR_SECRET": "peez_vendor_DEVELOPMENT_ONLY_not_a_secret", "LANG": "C.UTF-8",
        ]
        let enrolled = try await ProcessRunner.run(
            environment.map { "\($0.key)=\($0.value)" } + [PeezCommand.binary, "counter", "enroll", "--server", "http://127.0.0.1:\(service.port)"]
        )
        guard enrolled.status == 0 else { throw ServiceError("enrol failed: \(enrolled.standardError)") }
        let card = try await service.request("GET", "/v1/members/\(demoMember)/card", secret: backend)
        let token = try #require(card.body["token"] as? String)
        return (service, environment, token)
    }

    @Test func aCounterAnswersFromItsOwnSaleAtOnceAndItsReceiptSaysToRefreshTheCard() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (service, environment, _) = try await Self.enrolledService(folder)
        defer { service.killHard() }
        // Karim's card, fetched before he paid: no paid time on its face.
        let uuid = UUID().uuidString.lowercased()
        let created = try await service.request(
            "POST",
            "/v1/members",
            secret: Self.backend,
            json: ["uuid": uuid, "name": "Karim Haddad", "phone": "+213550000079", "email": "karim@example.dz", "neighbourhood": "usto"]
        )
        #expect(created.status == 201)
        let old = try #require(try await service.request("GET", "/v1/members/\(uuid)/card", secret: Self.backend).body["token"] as? String)
        let run = environment.map { "\($0.key)=\($0.value)" } + [PeezCommand.binary, "counter"]
        let before = try await ProcessRunner.run(run + ["--json"], input: Data((old + "\n").utf8))
        #expect(before.standardOutput.contains("\"no_paid_period\""), "\(before.standardOutput)")
        let sold = try await ProcessRunner.run(run + ["activate", "--months", "2", "--paid", "600", "--token", old])
        #expect(
            sold.status == 0 && sold.standardOutput.contains("SOLD") && sold.standardOutput.contains("open the PEEZ app"),
            "\(sold.standardOutput)"
        )
        // No sync since: the counter's own journal answers.
        let after = try await ProcessRunner.run(run + ["--json"], input: Data((old + "\n").utf8))
        #expect(
            after.standardOutput.contains("\"verdict\": \"valid\"") && after.standardOutput.contains("\"card_not_refreshed\": true"),
            "\(after.standardOutput)\(after.standardError)"
        )
        let shown = try await ProcessRunner.run(run, input: Data((old + "\n").utf8))
        #expect(shown.standardOutput.contains("  VALID  ") && shown.standardOutput.contains("card not yet refreshed"), "\(shown.standardOutput)")
        // A second sale to him is a decision: the counter says he is paid already.
        let again = try await ProcessRunner.run(run + ["activate", "--months", "1", "--paid", "300", "--token", old])
        #expect(again.status == 0 && again.standardError.contains("already paid until"), "\(again.standardError)")
        // A member whose phone cannot show the card: sold by the membership id printed on it.
        let membershipID = try #require(created.body["membership_id"] as? String)
        let byID = try await ProcessRunner.run(run + ["activate", "--months", "1", "--paid", "300", "--membership-id", membershipID])
        #expect(byID.status == 0 && byID.standardOutput.contains("SOLD"), "\(byID.standardOutput)\(byID.standardError)")
        let typo = try await ProcessRunner.run(run + ["activate", "--months", "1", "--paid", "300", "--membership-id", "PEEZ-2025"])
        #expect(typo.status == 2 && typo.standardError.contains("must look like"), "\(typo.standardError)")
    }

    @Test func damagedNewestTrustDataNeverLetsAnOlderStateCallARevokedCardValid() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (service, environment, token) = try await Self.enrolledService(folder)
        defer { service.killHard() }
        let sales = try await service.request("GET", "/v1/activations", secret: Self.admin, as: ActivationListBody.self)
        let sale = try #require(
            sales.body?.activations.first { $0.member_uuid == Self.demoMember }?.id
        )
        #expect(try await service.request("POST", "/v1/activations/\(sale)/cancel", secret: Self.admin).status == 200)
        let run = environment.map { "\($0.key)=\($0.value)" } + [PeezCommand.binary, "counter"]
        #expect(try await ProcessRunner.run(run + ["sync"]).status == 0)

        // One bit of the newest bundle (the delta that brought the revocation) flipped on disk.
        let statePath = folder.file("counter") + "/state.json"
        // JSON read and written back whole: the test damages a signed blob, it does not read the state.
        // The wire itself: the counter's state file, damaged on purpose (no type may tidy it).
        var state = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: statePath))) as? [String: Any])
        var bundles = try #require(state["bundles"] as? [String])
        let newest = try #require(bundles.last)
        var bytes = try #require(Data(base64Encoded: newest))
        bytes[bytes.count - 80] ^= 0x01
        bundles[bundles.count - 1] = bytes.base64EncodedString()
        state["bundles"] = bundles
        try JSONSerialization.data(withJSONObject: state).write(to: URL(fileURLWithPath: statePath))

        let scanned = try await ProcessRunner.run(run + ["--json"], input: Data((token + "\n").utf8))
        #expect(scanned.standardOutput.contains("cannot_confirm") && !scanned.standardOutput.contains("\"valid\""), "\(scanned.standardOutput)")
        #expect(
            scanned.standardError.contains("does not verify with the trusted key") && !scanned.standardError.contains("does not trust"),
            "the real fault is named: \(scanned.standardError)"
        )
        let shown = try await ProcessRunner.run(run, input: Data((token + "\n").utf8))
        #expect(shown.standardOutput.contains("CANNOT CONFIRM") && shown.standardOutput.contains("damaged"), "\(shown.standardOutput)")
        // A sync that succeeds replaces the damaged state: the revocation is back in force.
        #expect(try await ProcessRunner.run(run + ["sync"]).status == 0)
        let again = try await ProcessRunner.run(run + ["--json"], input: Data((token + "\n").utf8))
        #expect(again.standardOutput.contains("\"revoked\""), "\(again.standardOutput)\(again.standardError)")
    }

    @Test func aRunningSessionUsesTrustDataASyncBroughtAndARevokedCardShowsNoCoverage() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (service, environment, token) = try await Self.enrolledService(folder)
        defer { service.killHard() }
        let session = try LiveSession(["counter", "--sync-every", "0"], environment: environment)
        defer { session.finish() }
        let valid = try await session.scan(token)
        #expect(
            valid.contains("  VALID  ") && valid.contains("paid until") && valid.contains("(Algiers)"),
            "the demo member starts with a paid month: \(valid)"
        )
        #expect(
            session.standardError.contains("ready · trust data from") && session.standardError.contains("Ctrl-D to quit"),
            "\(session.standardError)"
        )

        // An admin cancels the demo member's month; a sync beside the running session brings the revocation.
        let sales = try await service.request("GET", "/v1/activations", secret: Self.admin, as: ActivationListBody.self)
        let sale = try #require(
            sales.body?.activations.first { $0.member_uuid == Self.demoMember }?.id
        )
        #expect(try await service.request("POST", "/v1/activations/\(sale)/cancel", secret: Self.admin).status == 200)
        let synced = try await ProcessRunner.run(environment.map { "\($0.key)=\($0.value)" } + [PeezCommand.binary, "counter", "sync"])
        #expect(synced.status == 0 && synced.standardOutput.contains("1 member(s) new"), "\(synced.standardOutput)\(synced.standardError)")

        let revoked = try await session.scan(token)
        #expect(revoked.contains("  REVOKED  "), "the session uses the trust data the sync saved: \(revoked)")
        #expect(!revoked.contains("paid until") && !revoked.contains("day(s) left"), "no coverage it does not have: \(revoked)")
        #expect(revoked.contains("show the card now in the PEEZ app"), "what to do: \(revoked)")
    }

    @Test func theCounterSpeaksTheShopsLanguageFrenchOrArabicRightToLeft() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (service, environment, token) = try await Self.enrolledService(folder)
        defer { service.killHard() }
        let plain = environment.map { "\($0.key)=\($0.value)" }
        let french = try await ProcessRunner.run(
            plain + [PeezCommand.binary, "counter", "--lang", "fr"],
            input: Data((token + "\nPEEZ1:garbage\n").utf8)
        )
        #expect(
            french.standardOutput.contains("  VALIDE  ") && french.standardOutput.contains("payée jusqu'au")
                && french.standardOutput.contains("(heure d'Alger)") && french.standardOutput.contains("  INVALIDE  "),
            "\(french.standardOutput)"
        )
        #expect(french.standardError.contains("prêt · données de confiance"), "\(french.standardError)")
        let arabic = try await ProcessRunner.run(
            plain.filter { !$0.hasPrefix("LANG=") } + ["LANG=ar_DZ.UTF-8", PeezCommand.binary, "counter"],
            input: Data((token + "\n").utf8)
        )
        #expect(
            arabic.standardOutput.contains("صالحة") && arabic.standardOutput.contains("\u{200F}"),
            "from LANG, each line marked right to left: \(arabic.standardOutput)"
        )
        let unknown = try await ProcessRunner.run(plain + [PeezCommand.binary, "counter", "--lang", "de"], input: Data())
        #expect(unknown.status == 2 && unknown.standardError.contains("--lang must be en, fr or ar"))

        // The receipt shows dates as every other screen does.
        let sold = try await ProcessRunner.run(
            plain + [PeezCommand.binary, "counter", "activate", "--months", "1", "--paid", "300", "--token", token, "--lang", "fr"]
        )
        #expect(
            sold.status == 0 && sold.standardOutput.contains("VENDU") && sold.standardOutput.contains("(heure d'Alger)")
                && !sold.standardOutput.contains("+01:00"),
            "\(sold.standardOutput)\(sold.standardError)"
        )
    }

    @Test func cannotConfirmSaysWhatToDoNextAndAnUnreachableServiceIsOnePlainSentence() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (service, environment, token) = try await Self.enrolledService(folder)
        let plain = environment.map { "\($0.key)=\($0.value)" }
        // The service's time already seen is a day ahead of this device's clock: the clock was set back.
        let statePath = folder.file("counter/state.json")
        // The wire itself: the counter's state file, edited as a wrong clock or damage would leave it (no type may tidy it).
        var state = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: statePath))) as? [String: Any])
        state["newest_server_time"] = Int(Date().timeIntervalSince1970) + 86_400
        try JSONSerialization.data(withJSONObject: state).write(to: URL(fileURLWithPath: statePath))
        let behind = try await ProcessRunner.run(plain + [PeezCommand.binary, "counter"], input: Data((token + "\n").utf8))
        #expect(
            behind.standardOutput.contains("  CANNOT CONFIRM  ") && behind.standardOutput.contains("next: set this device's date and time right"),
            "\(behind.standardOutput)"
        )
        let log = try await ProcessRunner.run(plain + [PeezCommand.binary, "counter", "log"])
        #expect(
            log.standardOutput.contains("cannot_confirm") && log.standardOutput.contains("clock wrong"),
            "logged as a wrong clock: \(log.standardOutput)"
        )
        // The clock set right, a sync reports that entry too: the service takes it, wrong clock and all.
        state["newest_server_time"] = Int(Date().timeIntervalSince1970) - 60
        try JSONSerialization.data(withJSONObject: state).write(to: URL(fileURLWithPath: statePath))
        let synced = try await ProcessRunner.run(plain + [PeezCommand.binary, "counter", "sync"])
        #expect(
            synced.status == 0 && synced.standardOutput.contains("scan log: 1 entry reported") && !synced.standardError.contains("refused"),
            "\(synced.standardOutput)\(synced.standardError)"
        )
        let scans = try await service.request("GET", "/v1/scans", secret: Self.admin, as: ScanListBody.self)
        let reported = scans.body?.scans ?? []
        #expect(reported.count == 1 && reported.first?.verdict == "cannot_confirm" && reported.first?.clock_wrong == true, "\(reported)")

        service.killHard()
        let unreachable = try await ProcessRunner.run(plain + [PeezCommand.binary, "counter", "sync"])
        let lines = unreachable.standardError.split(separator: "\n")
        #expect(unreachable.status != 0 && lines.count == 1 && lines[0].hasSuffix(": Connection refused"), "\(unreachable.standardError)")
    }
}
