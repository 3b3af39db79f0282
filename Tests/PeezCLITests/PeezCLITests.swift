import Foundation
import PeezAPI
import TestSupport
import Testing

@Suite("The peez command line")
struct PeezCLITests {
    /// A fresh key pair and a folder that holds only its public half (a verifier's key set).
    struct Workspace {
        let folder: TemporaryFolder
        let privateKey: String
        let keySet: String
        let kid: String

        init() throws {
            folder = try TemporaryFolder()
            let generated = try PeezCommand.run(["keys", "generate", "--out", folder.file("keys")])
            guard generated.status == 0 else { throw CLIError(generated.standardError) }
            kid = generated.standardOutput.trimmingCharacters(in: .newlines)
            privateKey = folder.file("keys/signing-key.pem")
            keySet = folder.file("trusted")
            try FileManager.default.createDirectory(atPath: keySet, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: folder.file("keys/signing-key.pub.pem"), toPath: keySet + "/mine.pem")
        }

        func issue(member: String = "PEEZ-20251103-00002", expires: String = "2030-12-31", extra: [String] = []) throws -> String {
            let result = try PeezCommand.run(["card", "issue", "--key", privateKey, "--member", member, "--expires", expires] + extra)
            guard result.status == 0 else { throw CLIError(result.standardError) }
            return result.standardOutput.trimmingCharacters(in: .newlines)
        }
    }

    struct CLIError: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    @Test func keysGeneratePrintsTheKidThatKeysShowReports() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        #expect(workspace.kid.count == 16)
        let shown = try PeezCommand.run(["keys", "show", workspace.privateKey])
        #expect(shown.status == 0)
        #expect(shown.standardOutput.contains("kid:       \(workspace.kid)"))
        #expect(shown.standardOutput.contains("EdDSA"))
        let shownPublic = try PeezCommand.run(["keys", "show", workspace.keySet + "/mine.pem"])
        #expect(shownPublic.standardOutput.contains(workspace.kid) && shownPublic.standardOutput.contains("public key"))
    }

    @Test func issuedCardVerifiesWithExitZero() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let token = try workspace.issue(extra: ["--name", "Ahmed Mohamed"])
        #expect(token.hasPrefix("PEEZ1:"))
        let verified = try PeezCommand.run(["verify", "--keys", workspace.keySet, token])
        #expect(verified.status == 0, "\(verified.standardError)")
        // The verdict itself, whole: "INVALID" also contains "VALID".
        #expect(verified.standardOutput.hasPrefix("VALID card  PEEZ-20251103-00002"), "\(verified.standardOutput)")
        #expect(verified.standardOutput.contains("Ahmed Mohamed"))
        #expect(verified.standardOutput.contains("day(s) left"))
    }

    @Test func aMistypedDatabaseIsAnErrorNotANewEmptyLedger() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let typo = folder.file("pez.sqlite")
        let token = try await PeezCommand.run(["admin", "create-token", "--database", typo])
        #expect(token.status != 0 && token.standardError.contains("no database at \(typo)") && token.standardOutput.isEmpty, "\(token.standardError)")
        let dryRun = try await PeezCommand.run(["remind", "run", "--database", typo, "--dry-run"])
        #expect(dryRun.status != 0 && dryRun.standardError.contains("no database at"), "\(dryRun.standardError)")
        let status = try await PeezCommand.run(["wallet", "status", "--database", typo])
        #expect(status.status != 0 && status.standardError.contains("no database at"), "\(status.standardError)")
        #expect(!FileManager.default.fileExists(atPath: typo), "nothing was created")
        let created = try await PeezCommand.run(["admin", "create-token", "--database", typo, "--create-database"])
        #expect(created.status == 0 && created.standardOutput.hasPrefix("peez_admin_"), "a new install creates it on purpose")
    }

    @Test func aPostgreSQLDatabaseWithoutTheLedgerIsAnErrorNotANewEmptyLedger() async throws {
        guard let base = ProcessInfo.processInfo.environment["PEEZ_TEST_DATABASE_URL"] else { return }
        let name = "peez_empty_" + UUID().uuidString.prefix(8).lowercased()
        #expect(try await ProcessRunner.run(["psql", base, "-qc", "CREATE DATABASE \(name)"]).status == 0)
        let url = String(base[..<base.lastIndex(of: "/")!]) + "/" + name
        let token = try await PeezCommand.run(["admin", "create-token", "--database-url", url])
        #expect(token.status != 0 && token.standardError.contains("holds no PEEZ ledger"), "\(token.standardError)")
        _ = try await ProcessRunner.run(["psql", base, "-qc", "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"])
    }

    @Test func aFailureWhileRunningIsOneErrorLineAndAUsageErrorShowsItsCommandsUsage() throws {
        let folder = try PeezCommand.run(["admin", "create-token", "--database", "/proc/no-such-folder/ledger.sqlite", "--create-database"])
        #expect(folder.status == 2)
        #expect(folder.standardError == "Error: cannot create the folder /proc/no-such-folder for the database: No such file or directory\n")
        let url = try PeezCommand.run(["serve", "--development", "--database-url", "mysql://somewhere/db"])
        #expect(url.status == 2 && url.standardError == "Error: the database URL must look like postgres://user:password@host:5432/database\n")
        let usage = try PeezCommand.run(["serve", "--port", "0"])
        #expect(usage.status == 2 && usage.standardError.hasPrefix("Error: --port must be 1 to 65535\nUsage: peez serve "))
    }

    @Test func theCommandLineCountsDaysLeftAsTheAPIDoes() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        // Expires 30 days and one hour from now: the API says 31 (a day begun counts whole); so must the CLI.
        let now = Int64(Date().timeIntervalSince1970)
        let token = try workspace.issue(expires: String(now + 30 * 86_400 + 3_600))
        let verified = try PeezCommand.run(["verify", "--keys", workspace.keySet, "--now", String(now), token])
        #expect(verified.standardOutput.contains("31 day(s) left"), "\(verified.standardOutput)")
    }

    @Test func verifyCountsDaysLeftFromItsNowTakesISOAndShowsNoDaysForACardThatDoesNotCount() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        // A card paid until 2027-01-26 (Algiers), verified as if it were 2027-01-20 10:00: 6 days, not the real clock's.
        let token = try workspace.issue(expires: "2027-01-25")
        let asOf = try PeezCommand.run(["verify", "--keys", workspace.keySet, "--now", "2027-01-20T10:00:00+01:00", token])
        #expect(asOf.status == 0 && asOf.standardOutput.contains("  6 day(s) left"), "\(asOf.standardOutput)\(asOf.standardError)")
        let epoch = try PeezCommand.run(["verify", "--keys", workspace.keySet, "--now", "1800435600", token])
        #expect(epoch.standardOutput == asOf.standardOutput, "ISO-8601 and epoch seconds name the same moment")
        let later = try PeezCommand.run(["verify", "--keys", workspace.keySet, "--now", "2027-03-01T10:00:00+01:00", token])
        #expect(
            later.status == 1 && later.standardOutput.hasPrefix("EXPIRED") && !later.standardOutput.contains("day(s) left"),
            "\(later.standardOutput)"
        )
        let wrong = try PeezCommand.run(["verify", "--keys", workspace.keySet, "--now", "next tuesday", token])
        #expect(wrong.status == 2 && wrong.standardError.contains("ISO-8601"), "\(wrong.standardError)")
    }

    @Test func aMistypedCounterFolderIsAnErrorNotAnEmptyLog() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let log = try PeezCommand.run(["counter", "log", "--folder", folder.file("countr")])
        #expect(log.status != 0 && log.standardError.contains("no counter in"), "\(log.standardOutput)\(log.standardError)")
    }

    @Test func expiresAcceptsADayAnISODateTimeAndEpochSeconds() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        // 2030-12-31 is valid through that whole day in Algiers (UTC+1): it ends at 2030-12-31T23:00:00Z.
        for (expires, exp) in [("2030-12-31", 1_924_988_400), ("2030-12-31T23:00:00Z", 1_924_988_400), ("1924988400", 1_924_988_400)] {
            let token = try workspace.issue(expires: expires)
            let json = try PeezCommand.run(["verify", "--json", "--keys", workspace.keySet, token])
            let answer = try JSONDecoder().decode(VerifyBody.self, from: Data(json.standardOutput.utf8))
            #expect(answer.exp == Int64(exp) && answer.verdict == "valid", "\(expires): \(json.standardOutput)")
        }
        let bad = try PeezCommand.run(["card", "issue", "--key", workspace.privateKey, "--member", "X", "--expires", "next week"])
        #expect(bad.status == 2)
        #expect(bad.standardError.contains("--expires"))
    }

    @Test func jsonOutputHasOneObjectPerToken() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let token = try workspace.issue(extra: ["--name", "أحمد"])
        let result = try PeezCommand.run(["verify", "--json", "--keys", workspace.keySet, token])
        // The wire itself: peez's --json output, read as a script would.
        let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        #expect(object?["verdict"] as? String == "valid")
        #expect(object?["sub"] as? String == "PEEZ-20251103-00002")
        #expect(object?["name"] as? String == "أحمد")
        #expect(object?["kid"] as? String == workspace.kid)
        #expect(object?["exp"] is NSNumber && object?["iat"] is NSNumber)
    }

    @Test func claimsAreHiddenWhenTheSignatureFails() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let stranger = try Workspace()
        defer { stranger.folder.remove() }
        let token = try stranger.issue()
        let result = try PeezCommand.run(["verify", "--json", "--keys", workspace.keySet, token])
        #expect(result.status == 1)
        // The wire itself: peez's --json output, read as a script would.
        let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        #expect(object?["verdict"] as? String == "unknown_key")
        #expect(object?["sub"] == nil)
    }

    @Test func standardInputGetsOneVerdictPerLineAndBadInputNeverStopsIt() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let good = try workspace.issue()
        let expired = try workspace.issue(expires: "2020-01-01", extra: ["--issued-at", "2019-12-01T10:00:00+01:00"])
        let scans = "\(good)\r\ngarbage\n\n\(String(repeating: "A", count: 100_000))\n\(expired)\r\(good)"
        let result = try PeezCommand.run(["verify", "--json", "--keys", workspace.keySet, "-"], input: scans)
        let verdicts = result.standardOutput.split(separator: "\n").map { line in
            // The wire itself: peez verify --json, one object a line, read as a script would.
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["verdict"] as? String
        }
        #expect(verdicts == ["valid", "malformed", "malformed", "expired", "valid"])
        #expect(result.status == 1)
    }

    @Test func everyLineIsAnsweredAsItArrives() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let token = try workspace.issue()
        let input = Pipe()
        let output = Pipe()
        let process = try ChildProcess(
            PeezCommand.binary,
            ["verify", "--keys", workspace.keySet, "-"],
            standardInput: .pipe(input),
            standardOutput: .pipe(output)
        )
        defer { process.terminate() }
        // Should the verdict never come, end the process so the read below returns instead of hanging.
        DispatchQueue.global().asyncAfter(deadline: .now() + 20) { if process.isRunning { process.terminate() } }
        // The scanner has typed one line and stays connected: the verdict must come without waiting for more.
        input.fileHandleForWriting.write(Data((token + "\n").utf8))
        let answer = output.fileHandleForReading.availableData
        #expect(String(decoding: answer, as: UTF8.self).hasPrefix("VALID card  "))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    @Test func aFileOfTokensIsVerifiedOnSeveralCoresInInputOrderWithASummary() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let valid = try workspace.issue()
        let expired = try workspace.issue(expires: "2020-01-01", extra: ["--issued-at", "1575190800"])
        // 3,000 lines: valid, expired, garbage, blank, in turn, so any reordering shows.
        let input = (0..<750).map { "\(valid)\n\(expired)\nPEEZ1:nonsense-\($0)\n\n" }.joined()
        let one = try PeezCommand.run(["verify", "--keys", workspace.keySet, "--json", "--jobs", "1", "-"], input: input)
        let four = try PeezCommand.run(["verify", "--keys", workspace.keySet, "--json", "--jobs", "4", "-"], input: input)
        #expect(one.status == 1 && four.status == 1)
        #expect(four.standardOutput == one.standardOutput, "the same answers, in the same order")
        // Each line is POST /v1/verify's answer, as the service writes it.
        let verdicts = try four.standardOutput.split(separator: "\n").map { try JSONDecoder().decode(VerifyBody.self, from: Data($0.utf8)).verdict }
        #expect(verdicts.count == 2_250 && verdicts.prefix(6) == ["valid", "expired", "malformed", "valid", "expired", "malformed"])
        #expect(four.standardError.contains("2250 token(s): 750 valid, 750 malformed, 750 expired"), "\(four.standardError)")
        #expect(try PeezCommand.run(["verify", "--keys", workspace.keySet, "--jobs", "0", "-"]).status == 2)
    }

    @Test func verifyImageAnswersEveryCodeInEveryFileAndExitsOneWhenAFileHasNone() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let first = try workspace.issue(extra: ["--png", workspace.folder.file("first.png")])
        let second = try workspace.issue(member: "PEEZ-20251104-00003", extra: ["--png", workspace.folder.file("second.png")])
        #expect(first != second)
        let both = try PeezCommand.run([
            "verify", "--keys", workspace.keySet, "--image", workspace.folder.file("first.png"), workspace.folder.file("second.png"),
        ])
        #expect(both.status == 0, "\(both.standardError)")
        #expect(both.standardOutput.contains("first.png: VALID card  PEEZ-20251103-00002"), "\(both.standardOutput)")
        #expect(both.standardOutput.contains("second.png: VALID card  PEEZ-20251104-00003"))

        let fixtures = repositoryRoot.appendingPathComponent("Fixtures/images").path
        let none = try PeezCommand.run(["verify", "--keys", workspace.keySet, "--image", fixtures + "/no-code.png"])
        #expect(none.status == 1 && none.standardError.contains("no-code.png: no QR code found"), "\(none.standardError)")
        let hostile = try PeezCommand.run([
            "verify", "--keys", workspace.keySet, "--json", "--image", fixtures + "/huge-dimensions.png", fixtures + "/truncated.png",
        ])
        #expect(hostile.status == 1)
        #expect(
            hostile.standardOutput.contains(#""error": "too_large""#) && hostile.standardOutput.contains(#""error": "damaged""#),
            "\(hostile.standardOutput)"
        )

        // A folder stands for its images; the fixture cards are signed by a key this workspace does not trust.
        let folder = try PeezCommand.run(["verify", "--keys", workspace.keySet, "--json", "--image", fixtures])
        #expect(folder.status == 1)
        #expect(folder.standardOutput.components(separatedBy: #""verdict":"unknown_key""#).count - 1 == 8, "\(folder.standardOutput)")
        #expect(try PeezCommand.run(["verify", "--keys", workspace.keySet, "--image", workspace.folder.file("nowhere.png")]).status == 2)
        #expect(try PeezCommand.run(["verify", "--keys", workspace.keySet, "--image", fixtures, "PEEZ1:AB"]).status == 2, "a token and --image")
    }

    @Test func revocationListTurnsACardRevoked() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let token = try workspace.issue()
        let json = try PeezCommand.run(["verify", "--json", "--keys", workspace.keySet, token]).standardOutput
        // The wire itself: peez's --json output, read as a script would.
        let cti = try #require((try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])?["cti"] as? String)
        let list = workspace.folder.file("revoked.json")
        try "{\"token_ids\": [\"\(cti)\"]}".write(toFile: list, atomically: true, encoding: .utf8)
        let result = try PeezCommand.run(["verify", "--revocations", list, "--keys", workspace.keySet, token])
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("REVOKED"))
    }

    @Test func nowAndLeewayOptionsMoveTheClock() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let token = try workspace.issue(expires: "1924988400")
        #expect(try PeezCommand.run(["verify", "--keys", workspace.keySet, "--now", "1924988700", token]).status == 0)
        #expect(try PeezCommand.run(["verify", "--keys", workspace.keySet, "--now", "1924988701", token]).status == 1)
        #expect(try PeezCommand.run(["verify", "--keys", workspace.keySet, "--now", "1924988701", "--leeway", "3600", token]).status == 0)
    }

    @Test func keyLoadingErrorsExitTwoWithAMessage() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let missing = try PeezCommand.run(["verify", "--keys", workspace.folder.file("nowhere"), "PEEZ1:AB"])
        #expect(missing.status == 2)
        #expect(missing.standardError.contains("does not exist"))
        chmod(workspace.privateKey, 0o644)
        let exposed = try PeezCommand.run(["card", "issue", "--key", workspace.privateKey, "--member", "X", "--expires", "2030-01-01"])
        #expect(exposed.status == 2)
        #expect(exposed.standardError.contains("chmod 600"))
        #expect(try PeezCommand.run(["verify", "PEEZ1:AB"]).status == 2)
    }

    @Test func aFirstKeySaysWhereToPointTheServiceAndOnlyARotationGivesTheRotationSteps() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let published = workspace.folder.file("public")
        let first = try PeezCommand.run(["keys", "rotate", "--out", workspace.folder.file("first"), "--published", published])
        #expect(first.status == 0 && first.standardError.contains("this is the service's first key: start it with --signing-key"))
        #expect(!first.standardError.contains("restart"), "no rotation advice on a first install: \(first.standardError)")
        let second = try PeezCommand.run(["keys", "rotate", "--out", workspace.folder.file("second"), "--published", published])
        #expect(second.status == 0 && second.standardError.contains("next: restart the service (still on the old key)"), "\(second.standardError)")
    }

    @Test func aKeyRetiredBeforeItSignedACardNoLongerVouchesForIt() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let published = workspace.folder.file("public")
        let rotated = try PeezCommand.run(["keys", "rotate", "--out", workspace.folder.file("new"), "--published", published])
        #expect(rotated.status == 0, "\(rotated.standardError)")
        let newKid = rotated.standardOutput.trimmingCharacters(in: .newlines)
        let windowsFile = URL(fileURLWithPath: published + "/windows.json")
        // The wire itself: the published key folder's windows.json, as an operator's tools read it.
        let windows = try JSONSerialization.jsonObject(with: Data(contentsOf: windowsFile)) as? [String: [String: Any]]
        #expect(windows?[newKid]?["published_at"] != nil, "rotate records when the new key was published")

        try FileManager.default.copyItem(atPath: workspace.keySet + "/mine.pem", toPath: published + "/old.pem")
        let token = try workspace.issue()
        #expect(try PeezCommand.run(["verify", "--keys", published, token]).status == 0)

        let retired = try PeezCommand.run(["keys", "retire", workspace.kid, "--published", published, "--at", "2026-02-01"])
        #expect(retired.status == 0, "\(retired.standardError)")
        #expect(retired.standardOutput.contains("2026-02-02 00:00"), "the end of that day in Algiers: \(retired.standardOutput)")
        let refused = try PeezCommand.run(["verify", "--keys", published, token])
        #expect(refused.status == 1)
        #expect(refused.standardOutput.contains("after its key was retired at 2026-02-02 00:00 (Algiers)"), "\(refused.standardOutput)")

        #expect(try PeezCommand.run(["keys", "retire", workspace.kid, "--published", published, "--at", "2099-01-01"]).status == 0)
        #expect(try PeezCommand.run(["verify", "--keys", published, token]).status == 0, "a card signed before retirement verifies")
        let stranger = try PeezCommand.run(["keys", "retire", "0000000000000000", "--published", published])
        #expect(stranger.status != 0 && stranger.standardError.contains("no key with kid"))
        #expect(try PeezCommand.run(["keys", "retire", "not-a-kid", "--published", published]).status == 2)
    }

    @Test func cardIssueWritesPNGAndSVGThatScanBackToTheToken() throws {
        let workspace = try Workspace()
        defer { workspace.folder.remove() }
        let png = workspace.folder.file("card.png")
        let svg = workspace.folder.file("card.svg")
        let result = try PeezCommand.run([
            "card", "issue", "--key", workspace.privateKey, "--member", "PEEZ-20251103-00002",
            "--expires", "2030-12-31", "--png", png, "--svg", svg, "--terminal",
        ])
        #expect(result.status == 0)
        #expect(result.standardError.contains("█"))
        let decoded = try ProcessRunner.run(["zbarimg", "--nodbus", "--quiet", "--raw", png])
        #expect(decoded.standardOutput.trimmingCharacters(in: .newlines) == result.standardOutput.trimmingCharacters(in: .newlines))
        #expect(try String(contentsOfFile: svg, encoding: .utf8).contains("<svg"))
    }

    /// Every command and command group, by the words that name it.
    static let commands: [[String]] = [
        [], ["serve"], ["admin"], ["admin", "create-token"], ["admin", "vendors"], ["admin", "credentials"], ["admin", "rename"],
        ["admin", "revoke"], ["admin", "rotate"], ["admin", "cut-off"], ["admin", "enrolment-code"], ["admin", "audit"],
        ["admin", "refused-sales"], ["admin", "console-link"], ["admin", "report"], ["admin", "balances"], ["admin", "balance-limit"],
        ["admin", "remit"], ["admin", "adjust"], ["admin", "reverse"], ["admin", "commission"], ["admin", "statement"], ["admin", "statements"],
        ["keys"], ["keys", "generate"],
        ["keys", "show"], ["keys", "rotate"], ["keys", "retire"], ["card"], ["card", "issue"], ["card", "present"],
        ["verify"],
        ["counter"], ["counter", "session"], ["counter", "enroll"], ["counter", "sync"], ["counter", "log"],
        ["counter", "activate"], ["counter", "pending"], ["counter", "retry"], ["counter", "account"], ["remind"], ["remind", "run"],
        ["remind", "status"], ["remind", "requeue"], ["remind", "new-secret"], ["wallet"], ["wallet", "check"], ["wallet", "status"], ["backup"],
        ["payments"], ["payments", "list"], ["payments", "show"], ["payments", "events"], ["payments", "reconcile"], ["payments", "refund"],
        ["dev"],
        ["dev", "seed"],
    ]

    @Test("help is exactly its stored snapshot (PEEZ_UPDATE_SNAPSHOTS=1 rewrites them)", arguments: commands)
    func helpMatchesItsSnapshot(command: [String]) throws {
        let snapshot = repositoryRoot.appendingPathComponent("Fixtures/help/" + (["peez"] + command).joined(separator: "-") + ".txt").path
        // A fixed width: ArgumentParser wraps help to the terminal's.
        let help = try ProcessRunner.run(["COLUMNS=100", PeezCommand.binary] + command + ["--help"])
        #expect(help.status == 0)
        if ProcessInfo.processInfo.environment["PEEZ_UPDATE_SNAPSHOTS"] == "1" {
            try help.standardOutput.write(toFile: snapshot, atomically: true, encoding: .utf8)
            return
        }
        let stored = try String(contentsOfFile: snapshot, encoding: .utf8)
        #expect(
            help.standardOutput == stored,
            "peez \(command.joined(separator: " ")) --help differs from \(snapshot); if the change is meant, make snapshots"
        )
    }

    /// A wrapped example is a trap: its second half, pasted, runs as a command of its own. At 80 columns (a
    /// terminal's usual width) every example line stays whole: indented, within the width, and a command of its
    /// own (no backslash continuing it on the next line).
    @Test("examples are never wrapped into lines a shell would run", arguments: commands)
    func examplesAreNeverWrapped(command: [String]) throws {
        let help = try ProcessRunner.run(["COLUMNS=80", PeezCommand.binary] + command + ["--help"])
        var inExamples = false
        for line in help.standardOutput.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("Example") {
                inExamples = true
                continue
            }
            if line.isEmpty || line.hasPrefix("USAGE:") {
                inExamples = false
                continue
            }
            guard inExamples else { continue }
            #expect(
                line.hasPrefix("  ") && line.count <= 80,
                "peez \(command.joined(separator: " ")) --help at 80 columns wraps an example: '\(line)'"
            )
            #expect(!line.hasSuffix("\\"), "peez \(command.joined(separator: " ")) --help: an example continues on the next line: '\(line)'")
        }
    }

    @Test(
        "every command that does something shows an example",
        arguments: commands.filter { !["admin", "keys", "card", "wallet"].contains($0.last ?? "") }
    )
    func helpHasAnExample(command: [String]) throws {
        let help = try PeezCommand.run(command + ["--help"])
        #expect(help.standardOutput.contains("OVERVIEW:"))
        let examples = Self.exampleInvocations(help.standardOutput)
        #expect(!examples.isEmpty, "an example invocation")
        // Each example runs a real command with options it has: its subcommands resolve, its flags are its own.
        for example in examples {
            var words = example.words
            var path: [String] = []
            while let next = words.first, !next.hasPrefix("-"), try PeezCommand.run(path + [next, "--help"]).status == 0,
                try PeezCommand.run(path + [next, "--help"]).standardOutput.contains("USAGE: peez " + (path + [next]).joined(separator: " "))
            {
                path.append(next)
                words.removeFirst()
            }
            let usage = try PeezCommand.run(path + ["--help"]).standardOutput
            #expect(!path.isEmpty || example.words.isEmpty || example.words.first?.hasPrefix("-") == true, "\(example.line): no such command")
            for flag in words where flag.hasPrefix("--") {
                let name = String(flag.prefix { $0 != "=" })
                #expect(usage.contains(name), "\(example.line): peez \(path.joined(separator: " ")) has no \(name)")
            }
        }
    }

    /// The `peez …` commands of a help text's examples (one a line), comments dropped.
    static func exampleInvocations(_ help: String) -> [(line: String, words: [String])] {
        var invocations: [(line: String, words: [String])] = []
        var inExamples = false
        for line in help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("Example") {
                inExamples = true
                continue
            }
            if line.isEmpty || line.hasPrefix("USAGE:") {
                inExamples = false
                continue
            }
            guard inExamples else { continue }
            var text = line.trimmingCharacters(in: .whitespaces)
            if let comment = text.range(of: "#") { text = String(text[..<comment.lowerBound]).trimmingCharacters(in: .whitespaces) }
            let words = text.split(separator: " ").map(String.init)
            // `peez …`, or inside a command substitution: `"$(peez remind new-secret)"`.
            guard let start = words.firstIndex(where: { $0 == "peez" || $0.hasSuffix("(peez") }) else { continue }
            invocations.append((text, words[(start + 1)...].map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ")\"")) }))
        }
        return invocations
    }
}
