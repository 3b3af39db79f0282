import PeezServices
import ArgumentParser
import CardCrypto
import CardServer
import CardToken
import CardWire
import Foundation
import Hummingbird
import Logging
import Membership
import MembershipSQL
import MembershipSQLite
import MembershipPostgres
import ServiceLifecycle
import UnixSignals

extension Peez {
    /// `peez serve`: the card service over HTTP.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the card service's HTTP API.",
            discussion: """
            Production needs a signing key of its own (--signing-key or PEEZ_SIGNING_KEY, mode 0600); the \
            development key is refused unless --development is given. --development also loads the demo data \
            (vendor "Boucherie Centrale", member "Ahmed Mohamed") and fixed demo API secrets, and prints them.

            Examples:
              peez serve --development                          # SQLite under var/, development key
              peez serve --signing-key /etc/peez/signing-key.pem --published-keys /etc/peez/public \\
                --database-url postgres://peez@db:5432/peez --host 0.0.0.0 --port 8080
            """
        )

        @OptionGroup var store: StoreOptions

        @Option(help: "The address to listen on.")
        var host = "127.0.0.1"

        @Option(help: "The port to listen on.")
        var port = 8080

        @Option(help: "The PKCS#8 Ed25519 key new cards are signed with (or PEEZ_SIGNING_KEY).")
        var signingKey: String?

        @Option(help: "A folder of public keys to publish beside the signing key (retired keys stay trusted).")
        var publishedKeys = "Keys/public"

        @Flag(help: "Development mode: the development key, demo data and demo secrets.")
        var development = false

        @Option(help: "Seconds to wait at start for the database to answer before giving up with an error.")
        var startTimeout = 15

        @Option(help: "Seconds SIGTERM or SIGINT leaves requests already accepted to finish before they are cancelled.")
        var drainTimeout = 10

        @OptionGroup var connections: ConnectionLimitOptions

        func validate() throws {
            guard (1...65_535).contains(port) else { throw ValidationError("--port must be 1 to 65535") }
            guard (1...600).contains(startTimeout) else { throw ValidationError("--start-timeout must be 1 to 600 seconds") }
            guard (1...600).contains(drainTimeout) else { throw ValidationError("--drain-timeout must be 1 to 600 seconds") }
        }

        func run() async throws {
            let keyPath = signingKey ?? ProcessInfo.processInfo.environment["PEEZ_SIGNING_KEY"]
                ?? (development ? DevelopmentData.signingKeyPath : nil)
            guard let keyPath else {
                throw ValidationError("give --signing-key (or PEEZ_SIGNING_KEY), or run with --development to use the development key")
            }
            let key = try KeyFiles.loadPrivateKey(path: keyPath)
            if key.keyID.hex == DevelopmentData.keyID && !development {
                throw ValidationError("\(keyPath) is the published development key; real cards must be signed with a key of your own (peez keys generate)")
            }
            let folder = PublishedKeyFolder(path: publishedKeys)
            let keyRing = KeyRing(signingKey: key, publishedKeys: try folder.keys(), windows: try folder.windows())
            if let refusal = keyRing.signingRefusal(now: CardDates.now()) {
                throw ValidationError("\(refusal) (see \(folder.windowsPath)); start with the current key")
            }
            let (host, port, development, storeOptions) = (host, port, development, store)
            let startTimeout = Duration.seconds(startTimeout)

            // One service group: the database pool starts first, the server opens its socket once the database
            // answered and is migrated; SIGTERM drains the server, then stops the pool.
            let (database, pool) = try await store.openDatabase()
            // Before anything runs: a database that cannot be used is one clear error, not a pool retrying.
            try await pool?.checkReachable(within: startTimeout)
            let ledger = SQLMembershipStore(opening: database)
            let app = buildApplication(
                cards: CardService(store: ledger, keyRing: keyRing),
                metrics: ServerMetrics.bootstrap(),
                configuration: ServerConfiguration(host: host, port: port, limits: connections.limits),
                services: pool.map { [$0] } ?? [],
                beforeServerStarts: {
                    try await ledger.migrate()
                    let demoMember = development ? try await DevelopmentData.seed(store: ledger) : nil
                    printNow("PEEZ card service on http://\(host):\(port)  (store: \(storeOptions.effectiveDatabaseURL == nil ? storeOptions.database : "PostgreSQL"), signing kid \(key.keyID.hex))")
                    if let demoMember { DevelopmentData.printGuide(baseURL: "http://\(host):\(port)", membershipID: demoMember) }
                })
            var configuration = ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [.sigterm, .sigint],
                                                          logger: Logger(label: "peez.lifecycle"))
            configuration.maximumGracefulShutdownDuration = .seconds(drainTimeout)
            configuration.maximumCancellationDuration = .seconds(5)
            do {
                try await ServiceGroup(configuration: configuration).run()
            } catch {
                try? await (database as? SQLiteDatabase)?.close()
                throw error
            }
            try await (database as? SQLiteDatabase)?.close()
        }
    }
}
