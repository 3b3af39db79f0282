import Foundation
import PeezAPI
import TestSupport
import Testing

/// `peez counter` against a real `peez serve` process: enrol, sync, and a session fed as a scanner feeds it.
@Suite("peez counter")
struct CounterCommandTests {
    static let vendorSecret = "PEEZ_VENDOR_SECRET=peez_vendor_DEVELOPMENT_ONLY_not_a_secret"

    @Test func enrolSyncAndASessionAnswerEveryScanPlainInAPipe() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let service = try ServiceProcess(arguments: ["--development", "--database", folder.file("ledger.sqlite")], port: TestPorts.unused())
        defer { service.killHard() }
        try await service.waitUntilReady()
        let home = "PEEZ_COUNTER_HOME=" + folder.file("counter")
        let server = "http://127.0.0.1:\(service.port)"

        let unsecret = try await ProcessRunner.run([home, PeezCommand.binary, "counter", "enroll", "--server", server])
        #expect(unsecret.status == 2 && unsecret.standardError.contains("PEEZ_VENDOR_SECRET"))
        let enrolled = try await ProcessRunner.run([home, Self.vendorSecret, PeezCommand.binary, "counter", "enroll", "--server", server])
        #expect(enrolled.status == 0, "\(enrolled.standardError)")
        #expect(enrolled.standardOutput.contains("keys added: 46211e5d86abc761"))
        var info = stat()
        #expect(stat(folder.file("counter/vendor-secret"), &info) == 0 && info.st_mode & 0o777 == 0o600)
        let synced = try await ProcessRunner.run([home, PeezCommand.binary, "counter", "sync"])
        #expect(synced.status == 0 && synced.standardOutput.contains("changes only"), "the kept secret is used: \(synced.standardError)")

        let card = try await service.request(
            "GET",
            "/v1/members/00000000-0000-4000-8000-000000000001/card",
            secret: "peez_backend_DEVELOPMENT_ONLY_not_a_secret"
        )
        let token = try #require(card.body["token"] as? String)
        for environment in [[home], [home, "NO_COLOR=1"]] {
            let session = try await ProcessRunner.run(
                environment + [PeezCommand.binary, "counter"],
                input: Data("\(token)\r\nPEEZ1:garbage\n\n\(token)\n".utf8)
            )
            #expect(session.status == 0)
            #expect(!session.standardOutput.contains("\u{1B}"), "plain in a pipe")
            #expect(session.standardOutput.components(separatedBy: "  VALID  ").count == 3 && session.standardOutput.contains("  INVALID  "))
            #expect(session.standardOutput.contains("Ahmed Mohamed  ·  PEEZ-20251103-00001"))
            #expect(session.standardOutput.contains("[valid 2 · invalid 1 · 3 scanned]"))
        }
        // A screenshot of the card (the service's own PNG) is answered like a scan; a picture without a code is named.
        let png = try await service.request(
            "GET",
            "/v1/members/00000000-0000-4000-8000-000000000001/card.png",
            secret: "peez_backend_DEVELOPMENT_ONLY_not_a_secret"
        )
        try png.data.write(to: URL(fileURLWithPath: folder.file("card.png")))
        let noCode = repositoryRoot.appendingPathComponent("Fixtures/images/no-code.png").path
        let pictured = try await ProcessRunner.run([home, PeezCommand.binary, "counter", "--image", folder.file("card.png"), noCode])
        #expect(pictured.status == 1, "a file without a code is not an answer")
        #expect(
            pictured.standardOutput.contains("card.png:   VALID  ") && pictured.standardOutput.contains("PEEZ-20251103-00001"),
            "each verdict after its file's name: \(pictured.standardOutput)"
        )
        #expect(pictured.standardError.contains("no-code.png: no QR code found"), "\(pictured.standardError)")

        let checked = try await ProcessRunner.run([home, PeezCommand.binary, "counter", "log", "--verify"])
        #expect(
            checked.status == 0 && checked.standardOutput.contains("7 entries, chain intact"),
            "\(checked.standardOutput)\(checked.standardError)"
        )
        let csv = try await ProcessRunner.run([home, PeezCommand.binary, "counter", "log", "--csv"])
        #expect(csv.standardOutput.hasPrefix("seq,time,verdict,member") && csv.standardOutput.contains(",valid,PEEZ-20251103-00001,"))
        let logPath = folder.file("counter/scans.log")
        let edited = try String(contentsOfFile: logPath, encoding: .utf8).replacingOccurrences(of: "\"malformed\"", with: "\"valid\"")
        try edited.write(toFile: logPath, atomically: true, encoding: .utf8)
        let tampered = try await ProcessRunner.run([home, PeezCommand.binary, "counter", "log", "--verify"])
        #expect(tampered.status == 1 && tampered.standardError.contains("tampered"))

        // On a terminal (script gives it one) the verdict is coloured, unless NO_COLOR says not to.
        let command = "printf '%s\\n' '\(token)' | \(PeezCommand.binary) counter"
        let coloured = try await ProcessRunner.run([home, "NO_COLOR=", "script", "-qec", command, "/dev/null"])  // whatever the test runner set
        #expect(coloured.standardOutput.contains("\u{1B}[1;42;30m  VALID  "), "\(coloured.standardOutput.prefix(200))")
        let uncoloured = try await ProcessRunner.run([home, "NO_COLOR=1", "script", "-qec", command, "/dev/null"])
        #expect(!uncoloured.standardOutput.contains("\u{1B}[1;") && uncoloured.standardOutput.contains("  VALID  "))
    }

    @Test func aRefusedOrUnsentSaleIsSaidInTheShopsLanguageWithNoEnglishInside() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let port = TestPorts.unused()
        let service = try ServiceProcess(arguments: ["--development", "--database", folder.file("ledger.sqlite")], port: port)
        defer { service.killHard() }
        try await service.waitUntilReady()
        let counter = ["PEEZ_COUNTER_HOME=" + folder.file("counter"), Self.vendorSecret, PeezCommand.binary, "counter"]
        await #expect(try ProcessRunner.run(counter + ["enroll", "--server", "http://127.0.0.1:\(port)"]).status == 0)
        let english = ["No member has", "cannot reach", "Connection refused", "the service answered", "status 404", "not_found"]
        let sale = ["activate", "--months", "1", "--paid", "300", "--membership-id", "PEEZ-20991231-99999", "--attempts", "1"]
        let refusals = [
            "fr": "REFUSÉ  membre (PEEZ-20991231-99999) : aucun membre n'a ce numéro d'adhérent.",
            "ar": "لا يوجد عضو بهذا الرقم",
            "en": "REFUSED  member (PEEZ-20991231-99999): no member has this membership id.",
        ]
        for (language, expected) in refusals {
            let refused = try await ProcessRunner.run(counter + sale + ["--lang", language])
            #expect(refused.status == 1 && refused.standardOutput.contains(expected), "\(language): \(refused.standardOutput)")
            #expect(!english.contains { refused.standardOutput.contains($0) }, "\(language): \(refused.standardOutput)")
        }
        service.killHard()
        let unreachable = ["fr": "le service PEEZ est injoignable", "ar": "تعذر الوصول إلى خدمة PEEZ", "en": "the PEEZ service cannot be reached"]
        for (language, expected) in unreachable {
            let unsent = try await ProcessRunner.run(counter + sale + ["--lang", language])
            #expect(unsent.status == 1 && unsent.standardOutput.contains(expected), "\(language): \(unsent.standardOutput)")
            #expect(!english.contains { unsent.standardOutput.contains($0) }, "\(language): \(unsent.standardOutput)")
        }
    }

    @Test func aSaleIsJournaledBeforeItIsSentAndEndsAsExactlyOnePeriodWhateverDies() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let port = TestPorts.unused()
        let arguments = ["--development", "--database", folder.file("ledger.sqlite")]
        var service = try ServiceProcess(arguments: arguments, port: port)
        defer { service.killHard() }
        try await service.waitUntilReady()
        let home = "PEEZ_COUNTER_HOME=" + folder.file("counter")
        let counter = [home, Self.vendorSecret, PeezCommand.binary, "counter"]
        await #expect(try ProcessRunner.run(counter + ["enroll", "--server", "http://127.0.0.1:\(port)"]).status == 0)
        let card = try await service.request(
            "GET",
            "/v1/members/00000000-0000-4000-8000-000000000001/card",
            secret: "peez_backend_DEVELOPMENT_ONLY_not_a_secret"
        )
        let token = try #require(card.body["token"] as? String)

        let wrongCash = try await ProcessRunner.run(counter + ["activate", "--months", "2", "--paid", "300", "--token", token])
        #expect(wrongCash.status == 2 && wrongCash.standardError.contains("2 month(s) cost 600 DZD"))
        let forged = try await ProcessRunner.run(counter + ["activate", "--months", "1", "--paid", "300", "--token", "PEEZ1:NOTACARD"])
        #expect(forged.status == 1 && forged.standardError.contains("not a genuine PEEZ card"), "\(forged.standardError)")

        // 1. A sale with the service up: sold, with a receipt.
        let sold = try await ProcessRunner.run(counter + ["activate", "--months", "1", "--paid", "300"], input: Data((token + "\r\n").utf8))
        #expect(
            sold.status == 0 && sold.standardOutput.contains("SOLD  Ahmed Mohamed (PEEZ-20251103-00001): 1 month(s), 300 DZD; paid until"),
            "\(sold.standardOutput)\(sold.standardError)"
        )

        // 2. A sale while the service is down: journaled, not confirmed, pending.
        service.killHard()
        let unsent = try await ProcessRunner.run(counter + ["activate", "--months", "2", "--paid", "600", "--token", token, "--attempts", "2"])
        #expect(unsent.status == 1 && unsent.standardOutput.contains("NOT CONFIRMED"))

        // 3. A sale the service recorded whose answer the counter never journaled (it died first).
        service = try ServiceProcess(arguments: arguments, port: port)
        try await service.waitUntilReady()
        await #expect(try ProcessRunner.run(counter + ["activate", "--months", "3", "--paid", "900", "--token", token]).status == 0)
        let journalPath = folder.file("counter/sales.journal")
        var journal = try String(contentsOfFile: journalPath, encoding: .utf8).split(separator: "\n").map(String.init)
        journal.removeLast()  // the third sale's "confirmed" record
        try (journal.joined(separator: "\n") + "\n").write(toFile: journalPath, atomically: true, encoding: .utf8)
        let pending = try await ProcessRunner.run(counter + ["pending"])
        #expect(
            pending.standardOutput.split(separator: "\n").count == 2 && pending.standardOutput.contains("2 month(s)  600 DZD")
                && pending.standardOutput.contains("3 month(s)  900 DZD"),
            "\(pending.standardOutput)"
        )

        // The service is killed and restarted in between; retry sends each pending sale under its first key.
        service.killHard()
        service = try ServiceProcess(arguments: arguments, port: port)
        try await service.waitUntilReady()
        let retried = try await ProcessRunner.run(counter + ["retry"])
        #expect(
            retried.status == 0 && retried.standardOutput.components(separatedBy: "SOLD").count == 3,
            "\(retried.standardOutput)\(retried.standardError)"
        )
        await #expect(try ProcessRunner.run(counter + ["pending"]).standardOutput.contains("no pending sale"))

        let subscription = try await service.request(
            "GET",
            "/v1/members/00000000-0000-4000-8000-000000000001/subscription",
            secret: "peez_backend_DEVELOPMENT_ONLY_not_a_secret"
        )
        let months = ((try? JSONDecoder().decode(SubscriptionBody.self, from: subscription.data))?.periods ?? []).map(\.months).sorted()
        #expect(months == [1, 1, 2, 3], "the demo data's month, then three payments, three periods: none lost, none twice")

        // The shop's own account, as its counter shows it: each of the three sales in it once.
        let account = try await ProcessRunner.run(counter + ["account"])
        let kept = try #require(
            try await service.request("GET", "/v1/counter/account", secret: "peez_vendor_DEVELOPMENT_ONLY_not_a_secret", as: ShopAccountBody.self)
                .body
        )
        #expect(kept.today_figures.sales_dzd >= 1_800)
        #expect(
            account.status == 0 && account.standardOutput.contains("Owed to PEEZ: \(kept.balance_dzd) DZD")
                && account.standardOutput.contains("\(kept.today_figures.net_dzd) DZD for PEEZ"),
            "\(account.standardOutput)\(account.standardError)"
        )
    }

    @Test func theServiceSpeaksTLSAndACounterTrustsItOnlyThroughTheCAGivenAtEnrolment() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let certificates = try TestCertificates(in: try TemporaryFolder(in: folder, "pki"))
        let exposedKey = folder.file("exposed.key")
        try FileManager.default.copyItem(atPath: certificates.serverKey, toPath: exposedKey)
        chmod(exposedKey, 0o644)
        let refused = try await PeezCommand.run([
            "serve", "--development", "--database", folder.file("refused.sqlite"), "--port", String(TestPorts.unused()),
            "--tls-certificate", certificates.serverChain, "--tls-key", exposedKey,
        ])
        #expect(refused.status != 0 && refused.standardError.contains("chmod 600 \(exposedKey)"), "\(refused.standardError)")

        let service = try ServiceProcess(
            arguments: [
                "--development", "--database", folder.file("ledger.sqlite"),
                "--tls-certificate", certificates.serverChain, "--tls-key", certificates.serverKey,
            ],
            port: TestPorts.unused()
        )
        defer { service.killHard() }
        // curl, an independent client, trusts only the test's root CA and checks the chain up to it.
        let health = ["curl", "-sS", "--max-time", "5", "--cacert", certificates.rootCertificate, "https://localhost:\(service.port)/health"]
        var answer = try await ProcessRunner.run(health)
        for _ in 0..<150 where answer.status != 0 && service.process.isRunning {
            try await Task.sleep(for: .milliseconds(200))
            answer = try await ProcessRunner.run(health)
        }
        #expect(answer.status == 0 && answer.standardOutput.hasSuffix(#""status":"ok"}"#), "\(answer.standardError) \(service.errorOutput)")
        let plain = try await ProcessRunner.run(["curl", "-sS", "--max-time", "5", "http://127.0.0.1:\(service.port)/health"])
        #expect(plain.status != 0, "plain HTTP gets no answer from the TLS port")

        let home = "PEEZ_COUNTER_HOME=" + folder.file("counter")
        let enrol = [home, Self.vendorSecret, PeezCommand.binary, "counter", "enroll", "--server", "https://localhost:\(service.port)"]
        let untrusted = try await ProcessRunner.run(enrol)
        #expect(
            untrusted.status != 0 && untrusted.standardError.contains("--ca-file"),
            "the system's roots do not vouch for a test CA: \(untrusted.standardError)"
        )
        let elsewhere = try TestCertificates(in: try TemporaryFolder(in: folder, "other-pki"))
        let impostor = try await ProcessRunner.run(enrol + ["--ca-file", elsewhere.rootCertificate])
        #expect(
            impostor.status != 0 && impostor.standardError.contains("(the CA file \(elsewhere.rootCertificate))"),
            "another CA's trust is not this service's"
        )
        let enrolled = try await ProcessRunner.run(enrol + ["--ca-file", certificates.rootCertificate])
        #expect(enrolled.status == 0, "\(enrolled.standardError)")
        let synced = try await ProcessRunner.run([home, PeezCommand.binary, "counter", "sync"])
        #expect(synced.status == 0 && synced.standardOutput.contains("changes only"), "the kept CA file is used: \(synced.standardError)")
    }

    @Test func syncReportsTheScanLogOnceAndAnAdminSeesACardUsedAtTwoShopsMinutesApart() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let service = try ServiceProcess(arguments: ["--development", "--database", folder.file("ledger.sqlite")], port: TestPorts.unused())
        defer { service.killHard() }
        try await service.waitUntilReady()
        let (admin, backend) = ("peez_admin_DEVELOPMENT_ONLY_not_a_secret", "peez_backend_DEVELOPMENT_ONLY_not_a_secret")
        let baker = try await service.request(
            "POST",
            "/v1/vendors",
            secret: admin,
            json: ["name": "Boulangerie El Bahia", "category": "boulangerie-patisserie", "neighbourhood": "gambetta"]
        )
        let bakerSecret = try #require(baker.body["api_secret"] as? String)
        let card = try await service.request("GET", "/v1/members/00000000-0000-4000-8000-000000000001/card", secret: backend)
        let token = try #require(card.body["token"] as? String)

        // The butcher's counter (the demo vendor) and the baker's each scan the same card, then sync.
        let server = "http://127.0.0.1:\(service.port)"
        func counter(_ name: String, _ secret: String, _ arguments: [String], input: String? = nil) throws -> ProcessResult {
            try ProcessRunner.run(
                ["PEEZ_COUNTER_HOME=" + folder.file(name), "PEEZ_VENDOR_SECRET=" + secret, PeezCommand.binary, "counter"] + arguments,
                input: input.map { Data($0.utf8) }
            )
        }
        for (name, secret) in [("butcher", "peez_vendor_DEVELOPMENT_ONLY_not_a_secret"), ("baker", bakerSecret)] {
            #expect(try counter(name, secret, ["enroll", "--server", server]).status == 0)
            #expect(try counter(name, secret, [], input: "\(token)\nPEEZ1:garbage\n").standardOutput.contains("  VALID  "))
            let synced = try counter(name, secret, ["sync"])
            #expect(
                synced.status == 0 && synced.standardOutput.contains("scan log: 2 entries reported"),
                "\(synced.standardOutput)\(synced.standardError)"
            )
        }
        #expect(try counter("butcher", "peez_vendor_DEVELOPMENT_ONLY_not_a_secret", ["sync"]).standardOutput.contains("scan log: 0 entries reported"))
        // A report whose answer was lost (the counter never recorded it) is sent again and stored once.
        try FileManager.default.removeItem(atPath: folder.file("butcher/scans.reported"))
        let again = try counter("butcher", "peez_vendor_DEVELOPMENT_ONLY_not_a_secret", ["sync"])
        #expect(again.standardOutput.contains("scan log: 0 entries reported, 2 the service already had"), "\(again.standardOutput)")

        let used = try await service.request("GET", "/v1/scans?membership_id=PEEZ-20251103-00001", secret: admin)
        let scans = try #require(try? JSONDecoder().decode(ScanListBody.self, from: used.data).scans, "\(used.body)")
        #expect(scans.count == 2 && Set(scans.map(\.vendor_name)) == ["Boucherie Centrale", "Boulangerie El Bahia"], "\(used.body)")
        #expect(
            try await service.request("GET", "/v1/scans?membership_id=PEEZ-20251103-00001", secret: "peez_vendor_DEVELOPMENT_ONLY_not_a_secret")
                .status == 403
        )
        let shared = try await service.request("GET", "/v1/scans/shared?within=600", secret: admin)
        let cards = try #require(try? JSONDecoder().decode(SharedCardsBody.self, from: shared.data).cards, "\(shared.body)")
        #expect(cards.count == 1 && cards.first?.membership_id == "PEEZ-20251103-00001", "\(shared.body)")
        #expect(try await service.request("GET", "/v1/scans/shared?within=0", secret: admin).status == 422)
    }
}
