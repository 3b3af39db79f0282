import Foundation
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

        let unsecret = try ProcessRunner.run([home, PeezCommand.binary, "counter", "enroll", "--server", server])
        #expect(unsecret.status == 2 && unsecret.standardError.contains("PEEZ_VENDOR_SECRET"))
        let enrolled = try ProcessRunner.run([home, Self.vendorSecret, PeezCommand.binary, "counter", "enroll", "--server", server])
        #expect(enrolled.status == 0, "\(enrolled.standardError)")
        #expect(enrolled.standardOutput.contains("keys added: 46211e5d86abc761"))
        var info = stat()
        #expect(stat(folder.file("counter/vendor-secret"), &info) == 0 && info.st_mode & 0o777 == 0o600)
        let synced = try ProcessRunner.run([home, PeezCommand.binary, "counter", "sync"])
        #expect(synced.status == 0 && synced.standardOutput.contains("changes only"), "the kept secret is used: \(synced.standardError)")

        let card = try await service.request("GET", "/v1/members/00000000-0000-4000-8000-000000000001/card",
                                             secret: "peez_backend_DEVELOPMENT_ONLY_not_a_secret")
        let token = try #require(card.body["token"] as? String)
        for environment in [[home], [home, "NO_COLOR=1"]] {
            let session = try ProcessRunner.run(environment + [PeezCommand.binary, "counter"], input: Data("\(token)\r\nPEEZ1:garbage\n\n\(token)\n".utf8))
            #expect(session.status == 0)
            #expect(!session.standardOutput.contains("\u{1B}"), "plain in a pipe")
            #expect(session.standardOutput.components(separatedBy: "  VALID  ").count == 3 && session.standardOutput.contains("  INVALID  "))
            #expect(session.standardOutput.contains("Ahmed Mohamed  ·  PEEZ-20251103-00001"))
            #expect(session.standardOutput.contains("[valid 2 · invalid 1 · 3 scanned]"))
        }
        let checked = try ProcessRunner.run([home, PeezCommand.binary, "counter", "log", "--verify"])
        #expect(checked.status == 0 && checked.standardOutput.contains("6 entries, chain intact"), "\(checked.standardOutput)\(checked.standardError)")
        let csv = try ProcessRunner.run([home, PeezCommand.binary, "counter", "log", "--csv"])
        #expect(csv.standardOutput.hasPrefix("seq,time,verdict,member") && csv.standardOutput.contains(",valid,PEEZ-20251103-00001,"))
        let logPath = folder.file("counter/scans.log")
        let edited = try String(contentsOfFile: logPath, encoding: .utf8).replacingOccurrences(of: "\"malformed\"", with: "\"valid\"")
        try edited.write(toFile: logPath, atomically: true, encoding: .utf8)
        let tampered = try ProcessRunner.run([home, PeezCommand.binary, "counter", "log", "--verify"])
        #expect(tampered.status == 1 && tampered.standardError.contains("tampered"))

        // On a terminal (script gives it one) the verdict is coloured, unless NO_COLOR says not to.
        let command = "printf '%s\\n' '\(token)' | \(PeezCommand.binary) counter"
        let coloured = try ProcessRunner.run([home, "NO_COLOR=", "script", "-qec", command, "/dev/null"])  // whatever the test runner set
        #expect(coloured.standardOutput.contains("\u{1B}[1;42;30m  VALID  "), "\(coloured.standardOutput.prefix(200))")
        let uncoloured = try ProcessRunner.run([home, "NO_COLOR=1", "script", "-qec", command, "/dev/null"])
        #expect(!uncoloured.standardOutput.contains("\u{1B}[1;") && uncoloured.standardOutput.contains("  VALID  "))
    }
}
