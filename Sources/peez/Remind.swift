import ArgumentParser
import CardCrypto
import CounterApp
import Foundation
import Membership
import MembershipSQL
import PeezBasics
import Reminders

extension Peez {
    /// `peez remind`: renewal reminders, each delivered once.
    struct Remind: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Renewal reminders: find members whose coverage ends soon and deliver each reminder once.",
            discussion: """
                Members are reminded 7 days, 3 days and 1 day before their coverage ends, and once on the day it has \
                ended (Algiers time). Each reminder is recorded in the ledger's database before it is delivered, \
                leased while it is, and settled with its outcome, so runs from cron, a systemd timer or peez serve \
                can overlap or be killed without a reminder delivered twice by them. The reminder id travels as the \
                webhook-id: a receiver that keeps the ids it has seen also drops the one repeat a crash between a \
                delivery and its record can cause.

                Examples:
                  # the receiver's secrets in PEEZ_WEBHOOK_SECRETS:
                  export PEEZ_REMIND_SINK=webhook:https://api.peez.dz/hooks/reminders
                  peez remind run --database var/peez.sqlite
                  peez remind status
                """,
            subcommands: [Run.self, Status.self, Requeue.self, NewSecret.self],
            defaultSubcommand: Run.self
        )
    }
}

/// Making a sink from the command line, for `peez remind run` and `peez serve --remind-at`.
enum ReminderSinkOptions {
    /// The sink `text` names (else PEEZ_REMIND_SINK), signed with the secrets from `secretsFile` (else `secrets`,
    /// else PEEZ_WEBHOOK_SECRETS) when it is a webhook.
    static func make(
        _ text: String?,
        secretsFile: String?,
        secrets: String? = nil,
        clock: WallClock,
        concurrency: Int = 32,
        timeout: Int64 = 10
    ) throws -> any ReminderSink {
        guard let text = try SettingsReader.current("PEEZ_REMIND_SINK", flag: text) else {
            throw ValidationError("give --sink jsonl:PATH, jsonl:- or webhook:URL (or set PEEZ_REMIND_SINK)")
        }
        switch try SinkSpecification(text) {
        case .jsonLines(let path):
            return try JSONLinesSink(path: path)
        case .webhook(let url):
            return try WebhookSink(
                url: url,
                signer: try StandardWebhookSigner(secrets: try secrets ?? webhookSecrets(secretsFile)),
                concurrency: concurrency,
                timeoutSeconds: timeout,
                clock: clock
            )
        }
    }

    private static func webhookSecrets(_ file: String?) throws -> String {
        if let file {
            try KeyFiles.requireOwnerOnly(file, what: "webhook secrets file")
            return try String(contentsOfFile: file, encoding: .utf8)
        }
        guard let secrets = try SettingsReader.current("PEEZ_WEBHOOK_SECRETS") else {
            throw ValidationError(
                "a webhook sink needs its whsec_ secret: set PEEZ_WEBHOOK_SECRETS or give --webhook-secrets-file (peez remind new-secret makes one)"
            )
        }
        return secrets
    }
}

/// A reminder sink as written on the command line: `jsonl:PATH`, `jsonl:-` (standard output) or `webhook:URL`.
enum SinkSpecification: Equatable {
    case jsonLines(String)
    case webhook(String)

    init(_ text: String) throws {
        if text.hasPrefix("jsonl:"), text.count > 6 {
            self = .jsonLines(String(text.dropFirst(6)))
        } else if text.hasPrefix("webhook:"), text.count > 8 {
            self = .webhook(String(text.dropFirst(8)))
        } else {
            throw ValidationError("--sink must be jsonl:PATH, jsonl:- (standard output) or webhook:https://…, not '\(text)'")
        }
    }
}

extension Peez.Remind {
    /// `peez remind run`: select, record, deliver.
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record the reminders due now and deliver every open one.",
            discussion: """
                Sinks: --sink jsonl:PATH appends one JSON object per line (flushed to the disk before it counts as \
                delivered), jsonl:- writes them to standard output; --sink webhook:URL POSTs each as Standard Webhooks \
                (webhook-id, webhook-timestamp, webhook-signature), signed with the whsec_ secrets in \
                PEEZ_WEBHOOK_SECRETS (several, space separated, while a secret is rotated) or --webhook-secrets-file.

                A receiver's 2xx is delivered; 408, 429, 5xx or no connection are retried on the schedule (with \
                jitter, honouring Retry-After); a request that timed out after it was sent is unknown and retried \
                with the same id; any other answer is failed. Retries due within --max-wait are made in this run, \
                later ones by the next run. Exit status 0 when every reminder was delivered (or made stale by a \
                renewal), 1 when some failed, were exhausted or are still open, 2 for a usage error.

                Examples:
                  peez remind run --database var/peez.sqlite --sink jsonl:var/reminders.jsonl
                  export PEEZ_WEBHOOK_SECRETS=whsec_…  PEEZ_DATABASE_URL=postgres://…
                  peez remind run --sink webhook:https://api.peez.dz/hooks/reminders
                  peez remind run --database peez.sqlite --dry-run --now 2026-12-24T08:00:00Z
                """
        )

        @OptionGroup var store: StoreOptions

        @Option(help: "Where reminders go: jsonl:PATH, jsonl:- or webhook:URL (or PEEZ_REMIND_SINK).")
        var sink: String?

        @Option(help: "A file (mode 0600) holding the webhook's whsec_ secrets, instead of PEEZ_WEBHOOK_SECRETS.")
        var webhookSecretsFile: String?

        @Option(
            help:
                "The channel reminders are recorded for: wallet puts them on members' Apple Wallet passes (no --sink); every other channel leaves those members out."
        )
        var channel = "push"

        @Option(help: "Act as if it were this time: ISO-8601 (2026-12-24T09:00:00+01:00) or epoch seconds; the clock runs on from it.")
        var now: String?

        @Flag(help: "Print the reminders that would be recorded, record and send nothing.")
        var dryRun = false

        @Option(help: "Webhook requests in flight at once.")
        var concurrency = 32

        @Option(help: "Reminders leased and delivered per batch.")
        var batchSize = 500

        @Option(
            help:
                "Seconds a leased reminder stays this run's before another run may take it; renewed while deliveries need it (at least --timeout + 3 for a webhook)."
        )
        var leaseSeconds: Int64 = 60

        @Option(help: "Seconds a webhook request may take, its answer included.")
        var timeout: Int64 = 10

        @Option(help: "Seconds this run waits for a retry or another run's lease before leaving it to a later run.")
        var maxWait: Int64 = 30

        @Option(help: "Seconds before each retry, comma separated.")
        var retrySchedule = "0,5,300,1800,7200,18000,36000"

        @Option(help: "Attempts after which a reminder is exhausted.")
        var maxAttempts = 8

        func validate() throws {
            try store.requireNamedLedger("peez remind run")
            guard (1...1_000).contains(concurrency) else { throw ValidationError("--concurrency must be 1 to 1000") }
            guard (1...5_000).contains(batchSize) else { throw ValidationError("--batch-size must be 1 to 5000") }
            guard (1...3_600).contains(leaseSeconds) else { throw ValidationError("--lease-seconds must be 1 to 3600") }
            guard (1...300).contains(timeout) else { throw ValidationError("--timeout must be 1 to 300 seconds") }
            guard (0...86_400).contains(maxWait) else { throw ValidationError("--max-wait must be 0 to 86400 seconds") }
            guard (1...100).contains(maxAttempts) else { throw ValidationError("--max-attempts must be 1 to 100") }
            _ = try schedule()
            if let now, CardDates.parseExpiry(now) == nil { throw ValidationError("--now '\(now)' is not ISO-8601 or epoch seconds") }
        }

        func schedule() throws -> RetrySchedule {
            let delays = retrySchedule.split(separator: ",").map { Int64($0.trimmingCharacters(in: .whitespaces)) }
            guard !delays.isEmpty, delays.allSatisfy({ ($0 ?? -1) >= 0 }) else {
                throw ValidationError("--retry-schedule must be seconds, comma separated, e.g. 0,5,300")
            }
            return RetrySchedule(delays: delays.map { $0! }, maxAttempts: maxAttempts)
        }

        func run() async throws {
            let clock = CardDates.clock.shifted(by: now.map { CardDates.parseExpiry($0)! - CardDates.now() } ?? 0)
            if dryRun {
                let channel = channel
                try await store.withStore { store in try await Self.preview(store, channel: channel, now: clock()) }
                return
            }
            // The sink signs with the real time (a receiver refuses an old webhook-timestamp); only which reminders are
            // due, and their leases, act as if it were --now.
            // The wallet channel's reminders go onto members' Wallet passes (the store is its sink).
            let outside = channel == Reminder.walletChannel ? nil : try makeSink(clock: CardDates.clock)
            let longestDelivery = outside?.longestDeliverySeconds ?? WalletPassReminderSink.deliverySeconds
            let shortestLease = ReminderLease.shortestLease(forDeliveriesOf: longestDelivery)
            guard leaseSeconds >= shortestLease else {
                await outside?.close()
                throw ValidationError(
                    "--lease-seconds must be at least \(shortestLease) for this sink: a delivery to it may take up to "
                        + "\(longestDelivery) s (to a webhook, --timeout + 1), and the run records it before its lease ends"
                )
            }
            let (channel, schedule, batchSize, leaseSeconds, maxWait) = (channel, try schedule(), batchSize, leaseSeconds, maxWait)
            let display = ReminderProgress(terminal: isatty(2) == 1)
            let summary = try await store.withStore { store in
                let sink: any ReminderSink = outside ?? WalletPassReminderSink(store: store, clock: CardDates.clock)
                let runner = ReminderRunner(
                    store: store,
                    sink: sink,
                    schedule: schedule,
                    channel: channel,
                    batchSize: batchSize,
                    leaseSeconds: leaseSeconds,
                    maxWaitSeconds: maxWait,
                    clock: clock
                )
                do {
                    let summary = try await runner.run { display.update($0) }
                    await sink.close()
                    // Members with a pass on a device are the wallet channel's: say how many this run left to it.
                    let leftToWallet =
                        channel == Reminder.walletChannel ? 0 : try await Self.dueCount(store, channel: Reminder.walletChannel, now: clock())
                    return (summary, leftToWallet)
                } catch {
                    await sink.close()
                    throw error
                }
            }
            display.finish(summary.0)
            if summary.1 > 0 {
                printError(
                    "\(summary.1) member(s) with an Apple Wallet pass on a device are due a reminder through it: run peez remind run --channel wallet"
                )
            }
            if !summary.0.allDelivered { throw ExitCode(1) }
        }

        private func makeSink(clock: WallClock) throws -> any ReminderSink {
            try ReminderSinkOptions.make(sink, secretsFile: webhookSecretsFile, clock: clock, concurrency: concurrency, timeout: timeout)
        }

        /// How many reminders a run of `channel` would record now.
        static func dueCount(_ store: SQLMembershipStore, channel: String, now: Int64) async throws -> Int {
            var cursor: UUID?
            var count = 0
            while true {
                let page = try await store.previewDueReminders(channel: channel, now: now, after: cursor, limit: 1_000)
                guard let last = page.last else { return count }
                count += page.count
                cursor = last.reminder.memberUUID
            }
        }

        /// Prints, one JSON object a line, the reminders a run would record now.
        static func preview(_ store: SQLMembershipStore, channel: String, now: Int64) async throws {
            var cursor: UUID?
            var count = 0
            while true {
                let page = try await store.previewDueReminders(channel: channel, now: now, after: cursor, limit: 1_000)
                guard let last = page.last else { break }
                var text = ""
                for due in page {
                    text += String(decoding: ReminderMessage(due, templates: .builtIn, now: now).json(), as: UTF8.self) + "\n"
                }
                FileHandle.standardOutput.write(Data(text.utf8))
                count += page.count
                cursor = last.reminder.memberUUID
            }
            printError("dry run: \(count) reminder(s) would be recorded and sent; nothing was recorded")
        }
    }
}

extension Peez.Remind {
    /// `peez remind status`: what became of the reminders.
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Count reminders by state and list the open, failed and exhausted ones with their reasons.",
            discussion: """
                Example:
                  peez remind status --limit 20
                """
        )

        @OptionGroup var store: StoreOptions

        @Option(help: "Reminders listed per state.")
        var limit = 50

        func run() async throws {
            let limit = limit
            let (counts, listed) = try await store.withStore { store in
                (
                    try await store.reminderCounts(channel: nil),
                    try await store.reminders(in: [.pending, .unknown, .failed, .exhausted], limit: limit)
                )
            }
            printNow(Reminder.State.allCases.map { "\($0.rawValue) \(counts[$0] ?? 0)" }.joined(separator: "  "))
            for reminder in listed {
                printNow(
                    "\(reminder.state.rawValue)  \(reminder.id)  attempts \(reminder.attempts)  next \(CardDates.display(reminder.nextAttemptAt))"
                        + (reminder.lastError.map { "  \($0)" } ?? "")
                )
            }
        }
    }

    /// `peez remind requeue`: open failed, exhausted or stuck reminders again.
    struct Requeue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Open reminders again (due now, attempts from zero): by state, by creation date range, or by id.",
            discussion: """
                Delivered and superseded reminders are never reopened.

                Examples:
                  peez remind requeue --state failed --state exhausted
                  peez remind requeue --from 2026-12-01 --to 2026-12-07
                  id=rem_6f1c2a7e-8d4b-4e9a-9c3f-2b7d5e1a0c44_1798758000_3d_push
                  peez remind requeue --id $id
                """
        )

        @OptionGroup var store: StoreOptions

        @Option(help: "failed, exhausted, unknown or pending; repeat for several (default: failed and exhausted).")
        var state: [String] = []

        @Option(help: "Only reminders created from this day (YYYY-MM-DD, Algiers).")
        var from: String?

        @Option(help: "Only reminders created up to the end of this day (YYYY-MM-DD, Algiers).")
        var to: String?

        @Option(help: "A reminder id; repeat for several.")
        var id: [String] = []

        func validate() throws {
            for name in state {
                guard let state = Reminder.State(rawValue: name), state != .delivered, state != .superseded else {
                    throw ValidationError("--state \(name): requeue takes failed, exhausted, unknown or pending")
                }
            }
            for day in [from, to].compactMap({ $0 }) where AlgiersCalendar.startOfDay(day) == nil {
                throw ValidationError("'\(day)' is not a date like 2026-12-01")
            }
        }

        func run() async throws {
            let states = (state.isEmpty && id.isEmpty ? ["failed", "exhausted"] : state).compactMap(Reminder.State.init(rawValue:))
            var created: ClosedRange<Int64>?
            if from != nil || to != nil {
                let start = from.flatMap(AlgiersCalendar.startOfDay) ?? 0
                let end = to.flatMap(AlgiersCalendar.startOfDay).map { $0 + 86_399 } ?? Int64.max
                guard start <= end else { throw ValidationError("--from is after --to") }
                created = start...end
            }
            let (ids, range) = (id, created)
            let count = try await store.withStore { store in
                try await store.requeueReminders(states: states, created: range, ids: ids, now: CardDates.now())
            }
            printNow("\(count) reminder(s) requeued")
        }
    }

    /// `peez remind new-secret`: a webhook secret.
    struct NewSecret: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a new Standard Webhooks secret (whsec_ and 32 random bytes, base64) for the receiver and PEEZ_WEBHOOK_SECRETS.",
            discussion: """
                Give the same secret to the receiver. To rotate, deliver with both (old and new, space separated) until \
                the receiver knows the new one, then drop the old.

                Example:
                  export PEEZ_WEBHOOK_SECRETS="$(peez remind new-secret)"
                """
        )

        func run() {
            print(StandardWebhookSigner.newSecret())
        }
    }
}
