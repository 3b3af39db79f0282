import PeezServices
import ArgumentParser
import CardCrypto
import CardServer
import CardToken
import Foundation
import Hummingbird
import Membership

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

        func validate() throws {
            guard (1...65_535).contains(port) else { throw ValidationError("--port must be 1 to 65535") }
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
            let published = FileManager.default.fileExists(atPath: publishedKeys)
                ? try KeySetLoader.load(paths: [publishedKeys]).keys.compactMap { $0 as? Ed25519PublicKey } : []
            let keyRing = KeyRing(signingKey: key, publishedKeys: published)
            let (host, port, development, storeOptions) = (host, port, development, store)

            try await store.withStore { store in
                if development { try await DevelopmentData.seed(store: store) }
                let cards = CardService(store: store, keyRing: keyRing)
                let app = buildApplication(cards: cards, configuration: ServerConfiguration(host: host, port: port))
                printNow("PEEZ card service on http://\(host):\(port)  (store: \(storeOptions.effectiveDatabaseURL == nil ? storeOptions.database : "PostgreSQL"), signing kid \(key.keyID.hex))")
                if development { DevelopmentData.printGuide(baseURL: "http://\(host):\(port)") }
                try await app.runService()
            }
        }
    }
}
