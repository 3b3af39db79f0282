import ArgumentParser
import CardToken
import Foundation
import PeezServices

extension Peez {
    /// `peez counter`: a vendor's counter, offline, on trust data the card service signs.
    struct Counter: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "counter",
            abstract: "Check cards at the counter, offline, on trust data the card service signs.",
            discussion: """
            Enrol once, sync when a network is there, and check cards without one. The vendor secret comes from \
            PEEZ_VENDOR_SECRET (enrol keeps it in the counter's folder, mode 0600), never from the command line.

            Examples:
              PEEZ_VENDOR_SECRET=peez_vendor_... peez counter enroll --server https://cards.peez.dz
              peez counter sync
              peez counter                      # then scan: one verdict per scanned line
            """,
            subcommands: [Session.self, Enroll.self, Sync.self, Log.self, Activate.self, Pending.self, Retry.self],
            defaultSubcommand: Session.self
        )
    }
}

/// The counter's folder, shared by its commands.
struct CounterFolderOptions: ParsableArguments {
    @Option(help: "The counter's folder (default: $PEEZ_COUNTER_HOME, else ~/.local/state/peez-counter).")
    var folder: String?

    var store: CounterStore {
        let environment = ProcessInfo.processInfo.environment
        let path = folder ?? environment["PEEZ_COUNTER_HOME"]
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state/peez-counter"
        return CounterStore(folder: path)
    }
}

extension Peez.Counter {
    /// `peez counter enroll`: pins the service's keys and takes the first trust data.
    struct Enroll: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Enrol this counter with the card service: pin its keys and take the first trust data.",
            discussion: """
            Fetches the signed counter bundle over https (plain http only to this machine) with the vendor \
            secret from PEEZ_VENDOR_SECRET, checks that the bundle's own keys sign it (and, with --expect-kid, \
            that the key you were told of is among them), and keeps it and the secret in the counter's folder. \
            The service's certificate must be one this system's roots vouch for, or, with --ca-file, that CA \
            (kept in the folder for every later sync and sale).

            Example:
              PEEZ_VENDOR_SECRET=peez_vendor_... peez counter enroll --server https://cards.peez.dz --expect-kid 46211e5d86abc761
            """
        )

        @OptionGroup var options: CounterFolderOptions

        @Option(help: "The card service, e.g. https://cards.peez.dz.")
        var server: String

        @Option(help: "The kid you were given out of band; enrolment fails unless the service's keys include it.")
        var expectKid: String?

        @Option(help: "A PEM file of the CA that alone vouches for the service's certificate (a private CA); default: the system's roots.")
        var caFile: String?

        func run() async throws {
            guard let secret = ProcessInfo.processInfo.environment["PEEZ_VENDOR_SECRET"], !secret.isEmpty else {
                throw ValidationError("set PEEZ_VENDOR_SECRET to the vendor secret the PEEZ team gave this shop")
            }
            let store = options.store
            let bytes = try await CounterClient(server: server, secret: secret, certificateAuthority: caFile).fetchBundle(since: nil)
            let (state, changes) = try CounterSync.enrol(bytes, server: server, expectedKeyID: expectKid, now: CardDates.now())
            try store.saveSecret(secret)
            try store.saveCertificateAuthority(from: caFile)
            try store.save(state)
            printNow("enrolled with \(server) in \(store.folder)")
            CounterReport.printChanges(changes)
        }
    }

    /// `peez counter sync`: newer trust data from the service.
    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fetch newer trust data: the revocations added since the last sync, and key changes.",
            discussion: """
            The bundle must be signed by a key this counter already trusts; a bundle that is not, or is older \
            than the one held, is refused and the trust data held stays in use. The new trust data replaces the \
            old atomically. Prints what changed. Then the scan log's new entries are reported to the service \
            (each stored once however often it is sent), so it can tell where a card was used.

            Example:
              peez counter sync
            """
        )

        @OptionGroup var options: CounterFolderOptions

        func run() async throws {
            let store = options.store
            let (state, trust, note) = try store.load()
            if let note { printError("warning: \(note)") }
            let since = CounterSync.wantsWholeList(state) ? nil : trust.revocationVersion
            let client = try store.client(for: state)
            let bytes = try await client.fetchBundle(since: since)
            let (updated, changes) = try CounterSync.accept(bytes, into: state, trusting: trust, now: CardDates.now())
            try store.save(updated)
            CounterReport.printChanges(changes)
            do {
                let report = try await ScanLogReport(store: store, client: client).run()
                printNow("scan log: \(report.stored) entr\(report.stored == 1 ? "y" : "ies") reported" + (report.alreadyStored > 0 ? ", \(report.alreadyStored) the service already had" : ""))
                if let broken = report.brokenChain { printError("warning: the scan log was tampered with (\(broken)); only the entries before that were reported") }
            } catch {
                printError("warning: the scan log was not reported (\(error)); the next sync sends it")
            }
        }
    }

    /// `peez counter` (the default): scans in, verdicts out.
    struct Session: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "session",
            abstract: "Read scans line by line (a handheld scanner types each QR code and Enter) and answer each at once.",
            discussion: """
            Each line gets one verdict: VALID, EXPIRED, REVOKED, INVALID, or CANNOT CONFIRM when the trust data \
            has expired or this device's clock is behind the service's, with the member, the coverage end and \
            the days left. Colour on a terminal; plain in a pipe or with NO_COLOR. Bad input never stops it. \
            With --image, the QR codes in PNG or JPEG photos or screenshots are answered instead (exit status 1 \
            when a file has no code or cannot be read).

            Examples:
              peez counter session --bell
              peez counter session --image screenshot.png
            """
        )

        @OptionGroup var options: CounterFolderOptions

        @Flag(help: "Ring the terminal bell on every verdict but VALID.")
        var bell = false

        @Flag(help: "One JSON object per verdict instead of the counter display.")
        var json = false

        @Option(parsing: .upToNextOption, help: "PNG or JPEG photos or screenshots of cards, or folders of them, instead of scans on standard input.")
        var image: [String] = []

        func run() async throws {
            let store = options.store
            let (state, trust, note) = try store.load()
            if let note { printError("warning: \(note)") }
            let log = store.scanLog
            var tally = CounterReport.Tally()
            let report = CounterReport(colour: CounterReport.wantsColour(), bell: bell, json: json)
            func answer(_ verdict: CounterVerdict, now: Int64) {
                report.write(verdict, tally: &tally, now: now)
                var claims: CardClaims?
                if case .card(let result) = verdict.outcome { claims = result.claims }
                do {
                    try log.append(at: now, verdict: verdict.code, member: claims?.subject, tokenID: claims?.tokenID.hex,
                                   offline: true, trustAge: now - state.lastSyncAt)
                } catch {
                    printError("warning: the scan log could not be written: \(error)")
                }
            }
            if !image.isEmpty {
                var everyFileRead = true
                ImageInputs.scan(try ImageInputs.expand(image)) { file, outcome in
                    guard case .codes(let codes) = outcome else {
                        everyFileRead = false
                        printError("\(file): \(outcome.message)")
                        return
                    }
                    for code in codes {
                        let now = CardDates.now()
                        answer(CounterVerdict.judge(code, trust: trust, state: state, now: now), now: now)
                    }
                }
                if !everyFileRead { throw ExitCode(1) }
                return
            }
            var reader = LineReader(fileDescriptor: 0, maxLineLength: CardTokenFormat.maxTokenLength + 64)
            while let line = reader.nextLine() {
                let now = CardDates.now()
                guard case .text(let bytes) = line else {
                    answer(CounterVerdict(outcome: .card(VerificationResult(verdict: .malformed, detail: "a line longer than any card token"))), now: now)
                    continue
                }
                if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
                answer(CounterVerdict.judge(bytes, trust: trust, state: state, now: now), now: now)
            }
        }
    }

    /// `peez counter log`: the record of every verdict.
    struct Log: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show, check or export the scan log: every verdict this counter gave.",
            discussion: """
            Each entry holds the time, the member and card id (never the whole token), the verdict, and how old \
            the trust data was. The entries are hash-chained: --verify finds a line edited, removed, inserted or \
            cut off the end, and exits 1 if it does.

            Examples:
              peez counter log --verify
              peez counter log --csv > scans.csv
            """
        )

        @OptionGroup var options: CounterFolderOptions

        @Flag(help: "Check the hash chain; exit 1 if any line was changed.")
        var verify = false

        @Flag(help: "Print the log as CSV.")
        var csv = false

        func run() async throws {
            let (entries, integrity) = try options.store.scanLog.read()
            if csv {
                FileHandle.standardOutput.write(Data(ScanLog.csv(entries).utf8))
            } else if !verify {
                for entry in entries {
                    printNow("\(entry.seq)  \(CardDates.display(entry.at))  \(entry.verdict)  \(entry.member ?? "-")  \(entry.tokenID ?? "-")  trust data \(entry.trustAge / 3600) h old")
                }
            }
            switch integrity {
            case .intact(let count):
                if verify { printNow("\(count) entries, chain intact") }
            case .broken(_, let reason):
                printError("the scan log was tampered with: \(reason)")
                throw ExitCode(1)
            }
        }
    }
}
