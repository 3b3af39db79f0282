import ArgumentParser
import CardCrypto
import CardServer
import CardServices
import CardToken
import Chargily
import Foundation
import Hummingbird
import Logging
import Membership
import MembershipSQL
import NIOCore
import Reminders
import ServiceLifecycle
import ServiceRuntime
import WalletPass
import WalletPush

extension Peez {
    /// `peez serve`: the card service over HTTP.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the card service's HTTP API.",
            discussion: """
                Production needs a signing key of its own (--signing-key or PEEZ_SIGNING_KEY, mode 0600); the \
                development key is refused unless --development is given. --development also loads the demo data \
                (vendor "Boucherie Centrale", member "Ahmed Mohamed") and fixed demo API secrets, and prints them.

                TLS: put a reverse proxy in front, or give --tls-certificate and --tls-key (PEM; or PEEZ_TLS_CERTIFICATE \
                and PEEZ_TLS_KEY) and the service speaks https itself. Counters send the vendor secret only over https.

                Behind a reverse proxy, name it with --trusted-proxies (or PEEZ_TRUSTED_PROXIES): only its Forwarded \
                or X-Forwarded-For header is read, from the right, to the first address that is not a trusted proxy: \
                the client, for the audit trail and the per-client limits. Anyone else's such headers are ignored. \
                Set --public-url to the proxy's https address too: no link is made from a proxied Host header.

                Keys: outside --development the development key is refused as the signing key and in the published \
                keys, and nothing is published by default beside the signing key (give the folder peez keys rotate \
                --published wrote); the development API secrets open nothing.

                Apple Wallet: give all six --wallet-… settings (or their PEEZ_WALLET_… variables); without them the \
                backend's Wallet routes answer 501 not_configured. Certificates are PEM or DER. They are checked at \
                start: a certificate for another pass type or team, a key that is not its, a WWDR intermediate that \
                did not issue it, or a certificate past its end leaves Wallet out with the reason (its routes answer \
                503 wallet_unavailable, /health says degraded) and the card service starts and serves without it. \
                The same for Google Wallet, the reminders and online payments (--chargily-…: the checkout route \
                answers 503 payments_unavailable without them). A TLS certificate renewed on disk is taken within a \
                minute, without a restart or a dropped connection.

                Examples:
                  # SQLite under var/, the development key:
                  peez serve --development
                  # PostgreSQL, key and TLS from the environment (as /etc/peez/peez.env):
                  export PEEZ_SIGNING_KEY=/etc/peez/signing-key.pem
                  export PEEZ_DATABASE_URL=postgres://peez@db:5432/peez
                  export PEEZ_TLS_CERTIFICATE=/etc/peez/tls/fullchain.pem
                  export PEEZ_TLS_KEY=/etc/peez/tls/key.pem
                  peez serve --published-keys /etc/peez/public --host 0.0.0.0 --port 8443
                """
        )

        @OptionGroup var store: StoreOptions

        @Flag(help: "Print the settings the service would run with (and where each came from, secrets masked), and exit.")
        var printConfig = false

        @Option(help: "The address to listen on (or PEEZ_HOST; default 127.0.0.1).")
        var host: String?

        @Option(help: "The port to listen on (or PEEZ_PORT; default 8080).")
        var port: Int?

        @Option(help: "The https address phones reach the service at, for enrolment links (or PEEZ_PUBLIC_URL; default: the address asked).")
        var publicUrl: String?

        @Option(
            help:
                "Reverse proxies whose Forwarded or X-Forwarded-For header names the client: IP addresses or CIDR ranges, comma-separated (or PEEZ_TRUSTED_PROXIES; default none)."
        )
        var trustedProxies: String?

        @Option(help: "The PKCS#8 Ed25519 key new cards are signed with (or PEEZ_SIGNING_KEY).")
        var signingKey: String?

        @Option(
            help:
                "A folder of public keys to publish beside the signing key, retired keys staying trusted (or PEEZ_PUBLISHED_KEYS; default Keys/public)."
        )
        var publishedKeys: String?

        @Flag(help: "Development mode: the development key, demo data and demo secrets.")
        var development = false

        @Option(help: "Seconds to wait at start for the database to answer before giving up with an error (or PEEZ_START_TIMEOUT; default 15).")
        var startTimeout: Int?

        @Option(
            help: ArgumentHelp(
                "Seconds SIGTERM or SIGINT leaves requests already accepted to finish (or PEEZ_DRAIN_TIMEOUT; default 10): the one bound "
                    + "on a stop. At it, whatever is left (requests, reminders, Wallet pushes) is cancelled and the service exits 0, whatever "
                    + "state the database is in. A request waits at most 5 s for a database connection, then is answered 503."
            )
        )
        var drainTimeout: Int?

        @OptionGroup var connections: ConnectionLimitOptions

        @Option(help: "Serve https with this PEM certificate chain, the server's certificate first (or PEEZ_TLS_CERTIFICATE).")
        var tlsCertificate: String?

        @Option(help: "The PEM private key of --tls-certificate, mode 0600 (or PEEZ_TLS_KEY).")
        var tlsKey: String?

        @Option(help: "Run the renewal reminders every day at this Algiers time (HH:MM), to --remind-sink (or PEEZ_REMIND_AT).")
        var remindAt: String?

        @Option(help: "Where the daily reminders go: jsonl:PATH or webhook:URL (or PEEZ_REMIND_SINK; secrets in PEEZ_WEBHOOK_SECRETS).")
        var remindSink: String?

        @OptionGroup var wallet: WalletOptions

        @OptionGroup var chargily: ChargilyOptions

        @Option(help: "Once the socket listens, write the port to this file (for a supervisor or a test to wait on).")
        var readyFile: String?

        func validate() throws {
            // A flag out of range is a usage error at once; a value from the environment or the file is checked
            // where it is read, named with where it came from.
            if let port, !(1...65_535).contains(port) { throw ValidationError("--port must be 1 to 65535") }
            if let startTimeout, !(1...600).contains(startTimeout) { throw ValidationError("--start-timeout must be 1 to 600 seconds") }
            if let drainTimeout, !(1...600).contains(drainTimeout) { throw ValidationError("--drain-timeout must be 1 to 600 seconds") }
        }

        func run() async throws {
            ConfigurationFile.use(store.config)
            let reader = try SettingsReader.forCommand()
            let settings = try ServeConfiguration(self, settings: reader, now: CardDates.now())
            if printConfig {
                printNow(reader.printed())
                return
            }
            if !settings.server.trustedProxies.isEmpty && settings.server.publicURL == nil {
                printError(
                    "warning: proxies are trusted but no --public-url (PEEZ_PUBLIC_URL) is set: enrolment and sign-in links through them name \(settings.server.baseURL), where this service listens; set the proxy's https address"
                )
            }
            // One service group: the database pool starts first, the server opens its socket once the database
            // answered and is migrated; SIGTERM drains the server, then stops the pool.
            var store = store
            (store.database, store.databaseURL) = (settings.sqlitePath, settings.databaseURL)
            let database = try await store.openDatabase()
            do {
                try await serve(settings, on: database)
            } catch let error as IOError where error.errnoCode == EADDRINUSE {
                try? await database.close()
                let (host, port) = (settings.server.host, settings.server.port)
                throw ValidationError("port \(port) on \(host) is already in use (another peez serve?): stop it, or choose another with --port")
            } catch {
                try? await database.close()
                throw error
            }
            try await database.close()
        }

        private func serve(_ settings: ServeConfiguration, on database: OpenedLedger) async throws {
            // Before anything runs: a database that cannot be used is one clear error, not a pool retrying.
            try await database.checkReachable(within: settings.startTimeout)
            let ledger = SQLMembershipStore(opening: database.database)
            let cards = CardService(store: ledger, keyRing: settings.keyRing, clock: CardDates.clock)
            let baseURL = settings.server.baseURL
            let appleSignal = settings.wallet != nil && settings.push != nil ? WalletPushSignal() : nil
            let googleSignal = settings.google != nil ? WalletPushSignal() : nil
            var afterChange: (@Sendable () -> Void)?
            if appleSignal != nil || googleSignal != nil {
                afterChange = {
                    appleSignal?.nudge()
                    googleSignal?.nudge()
                }
            }
            let migrated = ReadyFlag()
            let checkouts = settings.chargily.map { ChargilyClient(configuration: $0.configuration) }
            let google = settings.google.map {
                GoogleWalletService(cards: cards, store: ledger, account: $0.account, issuerID: $0.issuerID, origins: $0.origins)
            }
            let app = buildApplication(
                cards: cards,
                ledger: ledger,
                metrics: ServerMetrics.bootstrap(recording: settings.parts),
                configuration: settings.server,
                wallet: settings.wallet.map { WalletService(cards: cards, store: ledger, identity: $0.identity, webServiceURL: $0.webServiceURL) },
                googleWallet: google,
                parts: settings.parts,
                goLive: { [check = GoLiveCheck(.success(settings))] in
                    let now = CardDates.now()
                    return GoLiveReport(findings: await check.findings(ledger: ledger, now: now), checkedAt: now)
                },
                afterChange: afterChange,
                checkouts: checkouts.map { ($0, settings.chargily?.checkAfter ?? 300) },
                services: database.services,
                beforeServerStarts: {
                    await database.poolStarted()
                    try await ledger.migrate(now: CardDates.now())
                    migrated.set()
                    let demoMember = settings.development ? try await DevelopmentData.seed(cards: cards, store: ledger) : nil
                    printNow("PEEZ card service on \(baseURL)  (store: \(settings.storeName), signing kid \(settings.keyRing.signingKey.keyID.hex))")
                    if let demoMember { DevelopmentData.printGuide(baseURL: baseURL, membershipID: demoMember) }
                },
                onServerRunning: { [readyFile] port in
                    guard let readyFile else { return }
                    // Written whole, then renamed: whoever waits for the file never reads half of it.
                    do {
                        try Data("\(port)\n".utf8).write(to: URL(fileURLWithPath: readyFile), options: .atomic)
                    } catch {
                        printError("warning: could not write the ready file \(readyFile): \(error.localizedDescription)")
                    }
                }
            )
            var services: [any Service] = [
                app,
                SummaryFoldService(
                    fold: { try await ledger.foldConsoleSummaries() + ledger.pairQueuedSightings() },
                    ready: migrated
                ),
            ]
            if let checkouts, let checkAfter = settings.chargily?.checkAfter {
                services.append(
                    PaymentReconcilerService(
                        payments: PaymentService(store: ledger, cards: cards, gateway: checkouts, checkAfter: checkAfter),
                        ready: migrated,
                        interval: .seconds(min(30, max(1, checkAfter / 2))),
                        onStop: { await checkouts.close() }
                    )
                )
            }
            let tlsReload = settings.server.tls.map { TLSReloadService(tls: $0, parts: settings.parts, clock: CardDates.clock) }
            if let tlsReload { services.append(tlsReload) }
            if let reminders = settings.reminders {
                // A wrong sink or secret leaves the reminders out, said at start and in /health; cards and sales go on.
                do {
                    services.append(try await Self.dailyReminders(reminders, store: ledger))
                    settings.parts.markWorking(.reminders)
                } catch {
                    settings.parts.markUnavailable(.reminders, "\(error)")
                    printError("warning: the daily reminders are unavailable, the card service starts without them: \(error)")
                }
            }
            if let wallet = settings.wallet, let push = settings.push, let appleSignal {
                let client = try APNsClient(
                    server: push.url,
                    authentication: push.authentication,
                    topic: wallet.identity.passTypeIdentifier,
                    certificateAuthority: push.certificateAuthority,
                    clock: CardDates.clock
                )
                services.append(
                    WalletOutboxService.apple(store: ledger, client: client, signal: appleSignal, ready: migrated, clock: CardDates.clock)
                )
            }
            let parts = settings.parts
            if let google, let settings = settings.google, let googleSignal {
                let client = GoogleWalletClient(
                    account: settings.account,
                    apiURL: settings.apiURL,
                    clock: CardDates.clock,
                    keyStanding: { refusal in
                        guard let refusal else { return parts.markWorking(.googleWallet) }
                        parts.markUnavailable(.googleWallet, refusal)
                    }
                )
                services.append(
                    WalletOutboxService.google(
                        store: ledger,
                        service: google,
                        client: client,
                        signal: googleSignal,
                        ready: migrated,
                        clock: CardDates.clock
                    )
                )
            }
            let lifecycleLogger = Logger(label: "peez.lifecycle")
            var configuration = ServiceGroupConfiguration(services: services, logger: lifecycleLogger)
            configuration.maximumGracefulShutdownDuration = settings.drainTimeout
            configuration.maximumCancellationDuration = .seconds(5)
            try await ShutdownSignals.run(ServiceGroup(configuration: configuration), logger: lifecycleLogger, onHangUp: { tlsReload?.reloadNow() })
        }

        /// The daily reminder run; a wrong sink or secret stops the start, not the first run.
        private static func dailyReminders(
            _ reminders: (at: String, sink: String?, webhookSecrets: String?),
            store: SQLMembershipStore
        ) async throws -> any Service {
            let (sink, secrets) = (reminders.sink, reminders.webhookSecrets)
            await (try ReminderSinkOptions.make(sink, secretsFile: nil, secrets: secrets, clock: CardDates.clock)).close()
            return try DailyReminderService(
                at: reminders.at,
                store: store,
                makeSink: { try ReminderSinkOptions.make(sink, secretsFile: nil, secrets: secrets, clock: CardDates.clock) },
                clock: CardDates.clock
            )
        }
    }
}
