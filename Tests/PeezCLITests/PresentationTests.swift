import Foundation
import PeezAPI
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The device-bound card end to end, against a real `peez serve`: a phone's key registered, the card minted
/// bound to it, presentations made by `peez card present`, and the real counters (`peez counter`, typed lines
/// and pictures), `peez verify` in batch and the service's scan report all judging them alike.
@Suite("Cards bound to the phone, end to end")
struct PresentationTests {
    static let admin = "peez_admin_DEVELOPMENT_ONLY_not_a_secret"
    static let backend = "peez_backend_DEVELOPMENT_ONLY_not_a_secret"
    static let vendor = "peez_vendor_DEVELOPMENT_ONLY_not_a_secret"
    static let demoMember = "00000000-0000-4000-8000-000000000001"

    static func peez(_ arguments: [String], environment: [String: String] = [:], input: String? = nil) throws -> ProcessResult {
        try ProcessRunner.run(environment.map { "\($0.key)=\($0.value)" } + [PeezCommand.binary] + arguments, input: input.map { Data($0.utf8) })
    }

    @Test func aBoundCardCountsOnlyAsAFreshPresentationFromItsPhoneAtEveryVerifier() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let service = try ServiceProcess(arguments: ["--development", "--database", folder.file("ledger.sqlite")], port: TestPorts.unused())
        defer { service.killHard() }
        try await service.waitUntilReady()
        let server = "http://127.0.0.1:\(service.port)"

        // The phone makes its key; the backend registers it; the next card is bound to it.
        let generated = try Self.peez(["keys", "generate", "--device", "--out", folder.file("phone")])
        #expect(generated.status == 0, "\(generated.standardError)")
        let publicKey = generated.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let registered = try await service.request(
            "POST",
            "/v1/members/\(Self.demoMember)/device-key",
            secret: Self.backend,
            json: ["public_key": publicKey]
        )
        #expect(registered.status == 200 && registered.body["device_key"] as? String == publicKey, "\(registered.body)")
        let card = try #require(
            try await service.request("GET", "/v1/members/\(Self.demoMember)/card", secret: Self.backend).body["token"] as? String
        )
        let deviceKey = folder.file("phone/device-key.pem")
        func present(_ extra: [String] = []) throws -> String {
            let made = try Self.peez(["card", "present", "--device-key", deviceKey, "--card", card] + extra)
            #expect(made.status == 0, "\(made.standardError)")
            return made.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let fresh = try present(["--png", folder.file("presentation.png")])
        let stale = try present(["--at", String(Int(Date().timeIntervalSince1970) - 120)])

        // Two shops' counters, enrolled and synced after the key was registered.
        let baker = try await service.request(
            "POST",
            "/v1/vendors",
            secret: Self.admin,
            json: ["name": "Boulangerie El Bahia", "category": "boulangerie-patisserie", "neighbourhood": "gambetta"]
        )
        let bakerSecret = try #require(baker.body["api_secret"] as? String)
        func counter(_ name: String, _ secret: String) -> [String: String] {
            ["PEEZ_COUNTER_HOME": folder.file(name), "PEEZ_VENDOR_SECRET": secret, "LANG": "C.UTF-8"]
        }
        let butcher = counter("butcher", Self.vendor)
        let bakery = counter("bakery", bakerSecret)
        for shop in [butcher, bakery] {
            #expect(try Self.peez(["counter", "enroll", "--server", server], environment: shop).status == 0)
        }

        let session = try Self.peez(
            ["counter", "--sync-every", "0"],
            environment: butcher,
            input: [card, fresh, fresh, stale].joined(separator: "\n") + "\n"
        )
        let verdicts = session.standardOutput.components(separatedBy: "]\n").dropLast()
        #expect(verdicts.count == 4, "\(session.standardOutput)")
        #expect(
            verdicts[0].contains("  SHOW LIVE CODE  ") && verdicts[0].contains("authentic card, bound to the member's phone")
                && !verdicts[0].contains("not a genuine"),
            "the card shown bare is no fake: \(verdicts[0])"
        )
        #expect(verdicts[1].contains("  VALID  ") && verdicts[1].contains("paid until"), "\(verdicts[1])")
        #expect(verdicts[2].contains("  VALID  ") && verdicts[2].contains("same presentation was scanned here"), "scanned twice: \(verdicts[2])")
        #expect(verdicts[3].contains("  INVALID  ") && verdicts[3].contains("an old presentation"), "a screenshot: \(verdicts[3])")
        // The counter's own window: a presentation 10 s old is fresh by default, stale with a 1 s display period.
        let tenSecondsOld = try present(["--at", String(Int(Date().timeIntervalSince1970) - 10)])
        let defaultWindow = try Self.peez(["counter", "--sync-every", "0"], environment: butcher, input: tenSecondsOld + "\n")
        #expect(defaultWindow.standardOutput.contains("  VALID  "), "\(defaultWindow.standardOutput)")
        let tight = try Self.peez(
            ["counter", "--sync-every", "0", "--presentation-skew", "0", "--display-period", "1"],
            environment: butcher,
            input: tenSecondsOld + "\n"
        )
        #expect(tight.standardOutput.contains("an old presentation"), "\(tight.standardOutput)")
        let pictured = try Self.peez(["counter", "--image", folder.file("presentation.png")], environment: butcher)
        #expect(pictured.status == 0 && pictured.standardOutput.contains("  VALID  "), "\(pictured.standardOutput)\(pictured.standardError)")

        // The same presentation, passed on to another shop within its minute: valid there too, and reported.
        let copied = try Self.peez(["counter", "--sync-every", "0"], environment: bakery, input: fresh + "\n")
        #expect(copied.standardOutput.contains("  VALID  "), "\(copied.standardOutput)")
        for shop in [butcher, bakery] {
            let synced = try Self.peez(["counter", "sync"], environment: shop)
            #expect(synced.status == 0, "\(synced.standardError)")
        }
        let scans = try #require(
            try await service.request("GET", "/v1/scans?membership_id=PEEZ-20251103-00001", secret: Self.admin, as: ScanListBody.self).body?.scans
        )
        #expect(scans.count == 8, "\(scans)")
        #expect(
            scans.filter { $0.presented_at != nil }.count == 7,
            "every presentation whose signature verified is logged with its time: \(scans)"
        )
        let shared = try await service.request("GET", "/v1/scans/shared?within=600", secret: Self.admin, as: SharedCardsBody.self)
        let sighting = try #require(shared.body?.cards.first, "no card seen at two shops")
        #expect(sighting.same_presentation, "\(sighting)")

        // Batch verification from a key set file: the answers in input order, the same verdicts.
        let keys = try await service.request("GET", "/v1/keys", secret: Self.vendor)
        try keys.data.write(to: URL(fileURLWithPath: folder.file("keys.json")))
        let batch = try Self.peez(
            ["verify", "--keys", folder.file("keys.json"), "--json", "--jobs", "2", "-"],
            input: [fresh, stale, card, "PEEZP1:" + String(fresh.dropFirst(7).reversed())].joined(separator: "\n") + "\n"
        )
        // The wire itself: peez verify --json, one object a line, read as a script would.
        let answers = batch.standardOutput.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(
            answers.map { $0?["verdict"] as? String } == ["valid", "stale_presentation", "presentation_required", "malformed"],
            "\(batch.standardOutput)"
        )
        #expect(answers.map { $0?["step"] as? Int } == [nil, 16, 12, 3])

        // A new phone: the old phone's presentations are refused once the counter syncs.
        let newPhone = try Self.peez(["keys", "generate", "--device", "--out", folder.file("new-phone")]).standardOutput
        let replaced = try await service.request(
            "POST",
            "/v1/members/\(Self.demoMember)/device-key",
            secret: Self.backend,
            json: ["public_key": newPhone.trimmingCharacters(in: .whitespacesAndNewlines)]
        )
        #expect(replaced.status == 200)
        #expect(try Self.peez(["counter", "sync"], environment: butcher).status == 0)
        let oldPhone = try Self.peez(["counter", "--sync-every", "0"], environment: butcher, input: try present() + "\n")
        #expect(oldPhone.standardOutput.contains("  REVOKED  "), "\(oldPhone.standardOutput)")
    }
}

/// `peez card present --watch` as a person sees it: a terminal (tmux), its screen captured.
@Suite("peez card present --watch, on a terminal")
struct PresentationWatchTests {
    /// The QR code drawn in half blocks on `screen` (█ both modules dark, ▀ the upper, ▄ the lower), written as a
    /// PGM picture at `path` (4 pixels a module) and decoded by zbarimg.
    static func decodeDrawnCode(_ screen: String, into path: String) throws -> String {
        let blocks: Set<Character> = ["█", "▀", "▄", " "]
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let drawn = lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty && $0.allSatisfy(blocks.contains) }
        var rows: [[Bool]] = []
        for line in drawn {
            rows.append(line.map { $0 == "█" || $0 == "▀" })
            rows.append(line.map { $0 == "█" || $0 == "▄" })
        }
        let width = (rows.map(\.count).max() ?? 0) + 8
        let scale = 4
        var pixels: [UInt8] = []
        for y in -4..<(rows.count + 4) {
            var row: [UInt8] = []
            for x in -4..<(width - 4) {
                let dark = rows.indices.contains(y) && rows[y].indices.contains(x) && rows[y][x]
                row += Array(repeating: dark ? 0 : 255, count: scale)
            }
            for _ in 0..<scale { pixels += row }
        }
        let header = "P5\n\(width * scale) \((rows.count + 8) * scale)\n255\n"
        try (Data(header.utf8) + Data(pixels)).write(to: URL(fileURLWithPath: path))
        return try ProcessRunner.run(["zbarimg", "--nodbus", "--quiet", "--raw", path]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func theTerminalShowsAFreshPresentationEveryDisplayPeriodInPlace() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let phone = try PresentationTests.peez(["keys", "generate", "--device", "--out", folder.file("phone")])
        #expect(phone.status == 0)
        let key = repositoryRoot.appendingPathComponent("Keys/development/signing-key.pem").path
        let card = try PresentationTests.peez([
            "card", "issue", "--key", key, "--member", "PEEZ-20251103-00002", "--name", "Ahmed Mohamed", "--expires", "2099-12-31",
            "--device-key", folder.file("phone/device-key.pub.pem"),
        ]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let session = "peez-watch-\(UUID().uuidString.prefix(8))"
        let command = [
            PeezCommand.binary, "card", "present", "--device-key", folder.file("phone/device-key.pem"), "--card", card, "--watch", "--display-period",
            "2",
        ]
        let started = try await ProcessRunner.run(["tmux", "new-session", "-d", "-s", session, "-x", "160", "-y", "100"] + command)
        #expect(started.status == 0, "\(started.standardError)")
        defer { _ = try? ProcessRunner.run(["tmux", "kill-session", "-t", session]) }

        func screen() throws -> String { try ProcessRunner.run(["tmux", "capture-pane", "-p", "-t", session]).standardOutput }
        func caption(_ screen: String) -> String? { screen.split(separator: "\n").first { $0.contains("next in 2 s") }.map(String.init) }
        var first = ""
        for _ in 0..<50 where caption(first) == nil {
            try await Task.sleep(for: .milliseconds(100))
            first = try screen()
        }
        let firstCaption = try #require(caption(first), "the caption under the code: \(first)")
        #expect(firstCaption.contains("Ahmed Mohamed · PEEZ-20251103-00002 · made "), "\(firstCaption)")
        #expect(first.contains("█") || first.contains("▀"), "the QR code is drawn: \(first)")
        // What is drawn scans: the screen's half blocks read back as modules, and zbar (an independent decoder)
        // finds the presentation in them, one peez verify takes as this card's, live.
        let scanned = try Self.decodeDrawnCode(first, into: folder.file("screen.pgm"))
        #expect(scanned.hasPrefix("PEEZP1:"), "the drawn code scans as a presentation: \(scanned.prefix(60))")
        let verdict = try PresentationTests.peez(["verify", "--keys", repositoryRoot.appendingPathComponent("Keys/public").path, scanned])
        #expect(verdict.status == 0 && verdict.standardOutput.contains("VALID"), "\(verdict.standardOutput)\(verdict.standardError)")
        let firstDrawnLine = first.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("▀") || $0.contains("█") }
        #expect((firstDrawnLine ?? 99) <= 2, "drawn from the top of the cleared screen (below its quiet zone): \(first)")

        try await Task.sleep(for: .milliseconds(2_600))
        let second = try screen()
        let secondCaption = try #require(caption(second), "\(second)")
        #expect(secondCaption != firstCaption, "a new time after the display period")
        #expect(second != first, "a new code after the display period")
        #expect(second.components(separatedBy: "next in 2 s").count == 2, "redrawn in place, not scrolled: \(second)")
    }
}
