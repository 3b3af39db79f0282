import ArgumentParser
import CardToken
import CardWire
import CounterApp
import Foundation
import Membership
import PeezAPI

extension Peez {
    /// `peez counter`: a vendor's counter, offline, on trust data the card service signs.
    struct Counter: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "counter",
            abstract: "Check cards at the counter, offline, on trust data the card service signs.",
            discussion: """
                Enrol once, sync when a network is there, and check cards without one. The vendor secret comes from \
                PEEZ_VENDOR_SECRET (enrol keeps it in the counter's folder, mode 0600), never from the command line. \
                A counter the service cut off (its credential revoked or replaced) forgets its secret and trust data \
                and refuses every command, saying so in the shop's language (exit status 1), until it is enrolled \
                again with a new code from PEEZ.

                Examples:
                  export PEEZ_VENDOR_SECRET=peez_vendor_...
                  peez counter enroll --server https://cards.peez.dz
                  peez counter sync
                  # then scan: one verdict per scanned line
                  peez counter
                """,
            subcommands: [Session.self, Enroll.self, Sync.self, Log.self, Activate.self, Pending.self, Retry.self, Account.self],
            defaultSubcommand: Session.self
        )
    }
}

/// The counter's folder, shared by its commands.
struct CounterFolderOptions: ParsableArguments {
    @Option(help: "The counter's folder (default: $PEEZ_COUNTER_HOME, else ~/.local/state/peez-counter).")
    var folder: String?

    var store: CounterStore {
        let home = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
        return CounterStore(folder: SettingsReader.fromEnvironment("PEEZ_COUNTER_HOME", flag: folder, builtIn: home + "/.local/state/peez-counter")!)
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

                With --code (the one-time enrolment code PEEZ gave, or the whole link) the code is exchanged for a \
                credential of this counter's own, kept in its folder and never shown; PEEZ_VENDOR_SECRET is not needed.

                A counter the service cut off (its credential revoked or replaced) is brought back only this way, \
                with a new code from PEEZ: every other command refuses until then.

                Examples:
                  peez counter enroll --server https://peez.dz --code pz…
                  export PEEZ_VENDOR_SECRET=peez_vendor_...
                  peez counter enroll --server https://peez.dz --expect-kid 46211e5d86abc761
                """
        )

        @OptionGroup var options: CounterFolderOptions

        @Option(help: "The card service, e.g. https://cards.peez.dz.")
        var server: String

        @Option(help: "The kid you were given out of band; enrolment fails unless the service's keys include it.")
        var expectKid: String?

        @Option(help: "A PEM file of the CA that alone vouches for the service's certificate (a private CA); default: the system's roots.")
        var caFile: String?

        @Option(help: "A one-time enrolment code from PEEZ (or the link that carries it), instead of a vendor secret.")
        var code: String?

        @Option(help: "What this counter is called in PEEZ's list of the shop's devices (with --code).")
        var label = "peez counter on \(ProcessInfo.processInfo.hostName)"

        func run() async throws {
            let secret: String
            if let code {
                let bare = code.contains("#enrol=") ? String(code[code.range(of: "#enrol=")!.upperBound...]) : code
                guard EnrolmentCode.isWellFormed(bare) else {
                    throw ValidationError("--code is not a PEEZ enrolment code (pz and 26 letters or digits)")
                }
                secret = try await CounterClient.enrol(server: server, code: bare, label: label, certificateAuthority: caFile)
            } else {
                guard let given = SettingsReader.fromEnvironment("PEEZ_VENDOR_SECRET") else {
                    throw ValidationError("give --code (the enrolment code PEEZ gave) or set PEEZ_VENDOR_SECRET to the shop's vendor secret")
                }
                secret = given
            }
            let store = options.store
            let bytes = try await CounterClient(server: server, secret: secret, certificateAuthority: caFile).fetchBundle(since: nil)
            let (state, changes) = try CounterSync.enrol(bytes, server: server, expectedKeyID: expectKid, now: CardDates.now())
            // A cut-off counter forgets what it held before it takes the new credential; the mark goes last.
            if let mark = store.cutOff() { try store.forget(after: mark, now: CardDates.now()) }
            try store.saveSecret(secret)
            try store.saveCertificateAuthority(from: caFile)
            try store.save(state)
            try store.clearCutOff()
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
                old atomically, and a running peez counter session uses it from its next scan. Prints what changed. \
                Then the scan log's new entries are reported to the service (each stored once however often it is \
                sent), so it can tell where a card was used; an entry the service refuses for good is named and \
                passed over. When the service refuses this counter's own credential (revoked, or replaced), the \
                counter is cut off: it forgets its secret, trust data and scan log, keeps the sales whose cash goes \
                back, says so in the shop's language, and exits with status 1, as every later command does until \
                it is enrolled again with a new code.

                Example:
                  peez counter sync
                """
        )

        @OptionGroup var options: CounterFolderOptions
        @OptionGroup var language: CounterLanguageOptions

        func run() async throws {
            try await options.withUsableStore(language.texts) { store in
                let (state, _, note) = try store.load()
                if let note { printError("warning: \(note)") }
                let (changes, report) = try await CounterSync.run(store: store, client: try store.client(for: state), now: CardDates.clock)
                CounterReport.printChanges(changes)
                Self.printReport(report)
            }
        }

        static func printReport(_ report: Result<ScanLogReport.Outcome, any Error>) {
            switch report {
            case .success(let report):
                printNow(
                    "scan log: \(report.stored) entr\(report.stored == 1 ? "y" : "ies") reported"
                        + (report.alreadyStored > 0 ? ", \(report.alreadyStored) the service already had" : "")
                )
                if let broken = report.brokenChain {
                    printError("warning: the scan log was tampered with (\(broken)); only the entries before that were reported")
                }
                for refusal in report.refused {
                    printError("warning: scan-log entry \(refusal.seq) was refused for good (\(refusal.reason)); the next syncs move past it")
                }
            case .failure(let error):
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
                Each line gets one verdict: VALID, EXPIRED, NOT PAID, REVOKED, INVALID, or CANNOT CONFIRM when the \
                trust data has expired or this device's clock is behind the service's; VALID shows the member, the \
                coverage end and the days left, any other verdict what it means and what to do. Every verdict uses \
                the newest trust data on disk, and the session syncs by itself every --sync-every minutes when the \
                network is there (never holding up a scan). In French or Arabic with --lang fr or ar (or LANG). \
                Colour on a terminal; plain in a pipe or with NO_COLOR. Bad input never stops it. With --image, the \
                QR codes in PNG or JPEG photos or screenshots are answered instead, each after its file's name \
                (exit status 1 when a file has no code or cannot be read).

                Examples:
                  peez counter session --bell --lang fr
                  peez counter session --image screenshot.png
                """
        )

        @OptionGroup var options: CounterFolderOptions
        @OptionGroup var language: CounterLanguageOptions

        @Flag(help: "Ring the terminal bell on every verdict but VALID.")
        var bell = false

        @Flag(help: "One JSON object per verdict instead of the counter display.")
        var json = false

        @Option(help: "Minutes between syncs while the session runs; 0 never syncs by itself.")
        var syncEvery = CounterRules.shared.syncEvery / 60

        @Option(parsing: .upToNextOption, help: "PNG or JPEG photos or screenshots of cards, or folders of them, instead of scans on standard input.")
        var image: [String] = []

        @Option(help: "Seconds a presentation's time may differ from this device's clock, either way.")
        var presentationSkew: Int64 = PresentationWindow.standard.skew

        @Option(help: "Seconds a phone shows one presentation; it is accepted that much longer.")
        var displayPeriod: Int64 = PresentationWindow.standard.displayPeriod

        func validate() throws {
            guard (0...1_440).contains(syncEvery) else { throw ValidationError("--sync-every must be 0 to 1440 minutes") }
            guard (0...86_400).contains(presentationSkew) else { throw ValidationError("--presentation-skew must be 0 to 86400 seconds") }
            guard (1...3_600).contains(displayPeriod) else { throw ValidationError("--display-period must be 1 to 3600 seconds") }
        }

        func run() async throws {
            let texts = language.texts
            try await options.withUsableStore(texts) { store in try await session(store: store, texts: texts) }
        }

        /// The session on an enrolled counter that is not cut off; a cut-off found on the way (by a sync of its
        /// own or one beside it) is thrown before the next scan is answered: no verdict after it.
        private func session(store: CounterStore, texts: CounterTexts) async throws {
            let trustData = try SessionTrustData(store: store)
            let log = store.scanLog
            var tally = CounterReport.Tally()
            let window = PresentationWindow(skew: presentationSkew, displayPeriod: displayPeriod)
            var recent = RecentPresentations(window: window)
            let report = CounterReport(colour: CounterReport.wantsColour(), bell: bell, json: json, texts: texts)
            func answer(_ token: some Collection<UInt8>, file: String? = nil) throws {
                if let mark = store.cutOff() { throw mark }
                let now = CardDates.now()
                let (state, trust) = trustData.current()
                // This counter's own sales count at once, before a sync brings them.
                let ownSales: [RenewalListDocument.Entry]
                do {
                    ownSales = try store.saleJournal.ownRenewals()
                } catch {
                    printError("warning: the sale journal could not be read (\(error)); this counter's own sales are not counted")
                    ownSales = []
                }
                let verdict = CounterVerdict.judge(token, trust: trust.adding(ownSales: ownSales), state: state, now: now, window: window)
                answer(verdict.noting(in: &recent, now: now), state: state, now: now, file: file)
            }
            func answer(_ verdict: CounterVerdict, state: CounterState, now: Int64, file: String? = nil) {
                report.write(verdict, tally: &tally, now: now, file: file)
                var result: VerificationResult?
                if case .card(let card) = verdict.outcome { result = card }
                do {
                    try log.append(
                        deviceTime: now,
                        verdict: verdict.code,
                        member: result?.claims?.subject,
                        tokenID: result?.claims?.tokenID.hex,
                        presentedAt: result?.presentedAt,
                        offline: true,
                        state: state
                    )
                } catch {
                    printError("warning: the scan log could not be written: \(error)")
                }
            }
            if !image.isEmpty {
                var everyFileRead = true
                var stopped: (any Error)?
                ImageInputs.scan(try ImageInputs.expand(image)) { file, outcome in
                    guard stopped == nil else { return }
                    guard case .codes(let codes) = outcome else {
                        everyFileRead = false
                        printError("\(file): \(outcome.message)")
                        return
                    }
                    do {
                        for code in codes { try answer(code, file: file) }
                    } catch {
                        stopped = error
                    }
                }
                if let stopped { throw stopped }
                if !everyFileRead { throw ExitCode(1) }
                return
            }
            let (state, trust) = trustData.current()
            printError(
                state.lastSyncAt > 0
                    ? texts.text("ready", ["synced": texts.time(state.lastSyncAt), "until": texts.time(trust.validUntil)])
                    : texts.text("ready.no_sync", ["until": texts.time(trust.validUntil)])
            )
            let syncing = syncEvery > 0 ? Task { await Self.keepSyncing(store: store, every: syncEvery, texts: texts) } : nil
            defer { syncing?.cancel() }
            var reader = LineReader(fileDescriptor: 0, maxLineLength: CardTokenFormat.maxTokenLength + 64)
            while let line = reader.nextLine() {
                guard case .text(let bytes) = line else {
                    if let mark = store.cutOff() { throw mark }
                    let (state, _) = trustData.current()
                    answer(
                        CounterVerdict(outcome: .card(VerificationResult(verdict: .malformed, detail: "a line longer than any card token"))),
                        state: state,
                        now: CardDates.now()
                    )
                    continue
                }
                if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
                try answer(bytes)
            }
        }

        /// Syncs every `minutes`, in the background: each sync saves the state atomically, and the session's
        /// next scan finds it. A failed sync says why on standard error and keeps the data held. A sync that finds
        /// the counter cut off says so and ends the session at once, with exit status 1: nothing more is verified.
        static func keepSyncing(store: CounterStore, every minutes: Int, texts: CounterTexts) async {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(minutes * 60))
                guard !Task.isCancelled else { return }
                do {
                    if let mark = store.cutOff() { throw mark }
                    let (state, _, _) = try store.load()
                    let (changes, report) = try await CounterSync.run(store: store, client: try store.client(for: state), now: CardDates.clock)
                    printError(
                        texts.text(
                            "synced",
                            [
                                "cards": String(changes.tokenIDsAdded), "members": String(changes.membersAdded),
                                "until": texts.time(changes.validUntil),
                            ]
                        )
                    )
                    if case .failure(let error) = report { printError("warning: the scan log was not reported (\(error)); the next sync sends it") }
                } catch let mark as CounterCutOff {
                    CounterReport.printCutOff(mark, store: store, texts: texts)
                    Foundation.exit(1)
                } catch {
                    let problem = (error as? CounterClientError).map { texts.text($0.problem) } ?? "\(error)"
                    printError(texts.text("sync_failed", ["problem": problem, "minutes": String(minutes)]))
                }
            }
        }
    }

    /// `peez counter account`: what the shop owes PEEZ and today's takings.
    struct Account: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show what this shop owes PEEZ and today's takings, as the service keeps them.",
            discussion: """
                Asks the service (it needs the network): the cash the shop's sales collected for PEEZ, less the \
                commission it keeps and what it handed over; today's sales; the last remittance. Only this shop's \
                own account: its credential can read no other.

                Example:
                  peez counter account
                """
        )

        @OptionGroup var options: CounterFolderOptions
        @OptionGroup var language: CounterLanguageOptions

        func run() async throws {
            let texts = language.texts
            try await options.withUsableStore(texts) { store in
                let (state, _, _) = try store.load()
                let account = try await store.client(for: state).account()
                let today = account.today_figures
                var lines = [texts.text("account.owed", ["owed": String(account.balance_dzd)])]
                if let since = account.oldest_unremitted_on { lines[0] += " (" + texts.text("account.since", ["day": since]) + ")" }
                lines.append(
                    texts.text(
                        "account.today",
                        [
                            "day": account.today, "sales": String(today.sales - today.cancellations), "gross": String(today.gross_dzd),
                            "commission": String(today.commission_dzd), "net": String(today.net_dzd),
                        ]
                    )
                )
                if let last = account.last_remittance {
                    lines.append(texts.text("account.last_remittance", ["amount": String(-last.amount_dzd), "day": last.date]))
                }
                printNow(lines.map(TextRules.terminalSafe).joined(separator: "\n"))
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
        @OptionGroup var language: CounterLanguageOptions

        @Flag(help: "Check the hash chain; exit 1 if any line was changed.")
        var verify = false

        @Flag(help: "Print the log as CSV.")
        var csv = false

        func run() async throws {
            try await options.withUsableStore(language.texts) { store in try show(store) }
        }

        private func show(_ store: CounterStore) throws {
            // A mistyped --folder is an error, not an empty log.
            guard store.isEnrolled else {
                throw ValidationError("no counter in \(store.folder): check --folder (or $PEEZ_COUNTER_HOME); peez counter enroll makes one")
            }
            let (entries, integrity) = try store.scanLog.read()
            if csv {
                FileHandle.standardOutput.write(Data(ScanLog.csv(entries).utf8))
            } else if !verify {
                for entry in entries {
                    let age = entry.clockWrong ? "clock wrong" : "trust data \(entry.trustAge / 3600) h old"
                    printNow(
                        "\(entry.seq)  \(CardDates.display(entry.at))  \(entry.verdict)  \(entry.member ?? "-")  \(entry.tokenID ?? "-")  \(age)"
                    )
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

/// The trust data a session verifies with: loaded at its start, and loaded again before a scan whenever the
/// state on disk changed (a sync, by this session or by `peez counter sync` beside it), so every verdict uses
/// the newest trust data. A state that no longer loads leaves the one held in use, with a warning.
final class SessionTrustData: @unchecked Sendable {
    private let store: CounterStore
    private var stamp: [Int]
    private var held: (state: CounterState, trust: CounterTrust)

    init(store: CounterStore) throws {
        self.store = store
        stamp = store.stateStamp()
        let (state, trust, note) = try store.load()
        if let note { printError("warning: \(note)") }
        held = (state, trust)
    }

    /// The newest trust data: the held one, or the state on disk when it changed since.
    func current() -> (state: CounterState, trust: CounterTrust) {
        let now = store.stateStamp()
        guard now != stamp else { return held }
        stamp = now
        do {
            let (state, trust, note) = try store.load()
            if let note { printError("warning: \(note)") }
            held = (state, trust)
        } catch {
            printError("warning: the new trust data could not be loaded (\(error)); the data held stays in use")
        }
        return held
    }
}
