// swift-tools-version: 6.1
import PackageDescription

/// Swift 6 language mode with the upcoming features the style guide asks for.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "peez-card-service",
    products: [
        .executable(name: "peez", targets: ["peez"]),
        .library(name: "CardToken", targets: ["CardToken"]),
        .library(name: "CardCrypto", targets: ["CardCrypto"]),
        .library(name: "CardQR", targets: ["CardQR"]),
        .library(name: "CardScan", targets: ["CardScan"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.34.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.30.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.30.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
    ],
    targets: [
        // C libraries from Debian packages: module maps and shims only.
        .systemLibrary(
            name: "CPeezOpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CPeezRSVG",
            pkgConfig: "librsvg-2.0",
            providers: [.apt(["librsvg2-dev"])]
        ),
        .systemLibrary(
            name: "CPeezQRencode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]
        ),
        .systemLibrary(
            name: "CPeezPNG",
            pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]
        ),
        .systemLibrary(
            name: "CPeezZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .systemLibrary(
            name: "CPeezSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CPeezJPEG",
            pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg-dev"])]
        ),
        .systemLibrary(
            name: "CPeezZBar",
            pkgConfig: "zbar",
            providers: [.apt(["libzbar-dev"])]
        ),
        // libpng's classic API reports errors with longjmp, which Swift cannot survive:
        // this small C target keeps setjmp inside C and exposes a return-code API.
        .target(name: "CPeezPNGWriter", dependencies: ["CPeezPNG"]),
        // The same for reading: PNG and JPEG files to greyscale, bounded, with setjmp kept inside C.
        .target(name: "CPeezImageReader", dependencies: ["CPeezPNG", "CPeezJPEG"]),

        // Small value types every layer shares: the Algiers calendar, hex, decimal text, JSON string literals,
        // the seeded random generator. Nothing about cards, members or I/O.
        .target(name: "PeezBasics", swiftSettings: strictSettings),
        // The pure core: CBOR, Base45, COSE_Sign1, CWT claims and the verification rules.
        .target(name: "CardToken", dependencies: ["PeezBasics"], swiftSettings: strictSettings),
        // Ed25519 keys, kids and key sets through OpenSSL's libcrypto.
        .target(name: "CardCrypto", dependencies: ["CardToken", "CPeezOpenSSL"], swiftSettings: strictSettings),
        // QR matrices through libqrencode; PNG, SVG and terminal renderings.
        .target(name: "CardQR", dependencies: ["CPeezQRencode", "CPeezPNGWriter"], swiftSettings: strictSettings),
        // QR codes found in photos and screenshots: images through libpng and libjpeg, codes through zbar.
        .target(name: "CardScan", dependencies: ["CPeezImageReader", "CPeezZBar"], swiftSettings: strictSettings),

        // The membership domain: members, periods, activations, rules; the storage interface. No I/O.
        .target(name: "Membership", dependencies: ["PeezBasics", "CardToken"], swiftSettings: strictSettings),
        // One SQL implementation of the storage interface, over an async connection either store provides.
        .target(name: "MembershipSQL", dependencies: ["PeezBasics", "CardToken", "Membership"], swiftSettings: strictSettings),
        .target(
            name: "MembershipSQLite",
            dependencies: [
                "MembershipSQL", "CPeezSQLite",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "MembershipPostgres",
            dependencies: [
                "MembershipSQL",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),

        // Demo and load-test ledgers (peez dev seed, the benchmarks): never part of a production store.
        .target(name: "LedgerSeeding", dependencies: ["PeezBasics", "Membership", "MembershipSQL"], swiftSettings: strictSettings),

        // Apple Wallet passes: the pass's content, its manifest, its CMS signature through OpenSSL and the archive;
        // and the checks `peez wallet check` makes of a pass file.
        .target(
            name: "WalletPass",
            dependencies: ["PeezBasics", "CardToken", "CardCrypto", "CPeezOpenSSL", .product(name: "ZIPFoundation", package: "ZIPFoundation")],
            exclude: ["images/make-images.py"],
            resources: [
                .embedInCode("images/icon.png"), .embedInCode("images/icon@2x.png"), .embedInCode("images/icon@3x.png"),
                .embedInCode("images/logo.png"), .embedInCode("images/logo@2x.png"), .embedInCode("images/logo@3x.png"),
            ],
            swiftSettings: strictSettings
        ),

        // What both counters show (the verdict texts) and the web counter's files, built in; gzip through zlib.
        .target(
            name: "CounterAssets",
            dependencies: ["CPeezZlib"],
            exclude: ["site/make-icons.py"],
            resources: [
                .embedInCode("counter-texts.json"), .embedInCode("counter-rules.json"),
                .embedInCode("site/rules.js"), .embedInCode("site/problems.js"), .embedInCode("site/scan-log.js"),
                .embedInCode("site/sales.js"),
                .embedInCode("site/index.html"), .embedInCode("site/counter.css"), .embedInCode("site/app.js"),
                .embedInCode("site/counter.js"), .embedInCode("site/store.js"), .embedInCode("site/trust.js"),
                .embedInCode("site/verifier.js"), .embedInCode("site/keys.js"), .embedInCode("site/claims.js"),
                .embedInCode("site/cose.js"), .embedInCode("site/cbor.js"), .embedInCode("site/base45.js"),
                .embedInCode("site/token-error.js"), .embedInCode("site/decoder.js"), .embedInCode("site/zbar.js"),
                .embedInCode("site/zbar.wasm"), .embedInCode("site/web-texts.json"), .embedInCode("site/manifest.webmanifest"),
                .embedInCode("site/icon-192.png"), .embedInCode("site/icon-512.png"), .embedInCode("site/sw.js"),
            ],
            swiftSettings: strictSettings
        ),
        // The console's files and texts, built in (Docs/console.md).
        .target(
            name: "ConsoleAssets",
            dependencies: ["CounterAssets"],
            resources: [
                .embedInCode("site/api.js"), .embedInCode("site/app.js"), .embedInCode("site/console-texts.json"), .embedInCode("site/console.css"),
                .embedInCode("site/crosstab.js"), .embedInCode("site/dialog.js"), .embedInCode("site/dom.js"), .embedInCode("site/format.js"),
                .embedInCode("site/index.html"), .embedInCode("site/panel-anomalies.js"), .embedInCode("site/panel-audit.js"),
                .embedInCode("site/panel-checks.js"),
                .embedInCode("site/panel-counters.js"), .embedInCode("site/panel-members.js"), .embedInCode("site/panel-reminders.js"),
                .embedInCode("site/panel-renewals.js"), .embedInCode("site/panel-sales.js"), .embedInCode("site/panel-subscriptions.js"),
                .embedInCode("site/panel-payments.js"), .embedInCode("site/panel-wallet.js"), .embedInCode("site/panel-accounts.js"),
                .embedInCode("site/range.js"), .embedInCode("site/revoke.js"), .embedInCode("site/session.js"), .embedInCode("site/texts.js"),
            ],
            swiftSettings: strictSettings
        ),
        // Wire documents (key set, revocation list): one Codable type each, for the server, the CLI and the tests.
        .target(name: "CardWire", dependencies: ["PeezBasics", "CardToken", "CardCrypto"], swiftSettings: strictSettings),

        // The HTTP API's bodies: one Codable type each, for the server, its clients (the counter) and the tests.
        .target(name: "PeezAPI", dependencies: ["PeezBasics", "CardToken", "Membership"], swiftSettings: strictSettings),
        // The console's charts, drawn as SVG documents: no I/O, no HTTP, no database.
        .target(name: "ConsoleCharts", dependencies: ["PeezBasics"], swiftSettings: strictSettings),

        // The card service's use cases (a sale, a card, verification, keys, provisioning) that the HTTP server
        // and the CLI both call.
        .target(
            name: "CardServices",
            dependencies: [
                "PeezBasics", "CardToken", "CardCrypto", "CardQR", "CardWire", "Membership", "PeezAPI", "WalletPass",
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings
        ),
        // Apple Wallet pass updates pushed through APNs (HTTP/2): the outbox worker and the APNs client.
        // Pages drawn as SVG written as a PDF, through librsvg and cairo (`peez admin report --pdf`).
        .target(name: "ReportPDF", dependencies: ["CPeezRSVG"], swiftSettings: strictSettings),
        // The console's panels and sign-in, for the HTTP console and `peez admin report`.
        .target(
            name: "Console",
            dependencies: ["CardServices", "ConsoleCharts", "Membership", "PeezAPI", "PeezBasics", "CardCrypto", "ReportPDF"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "WalletPush",
            dependencies: [
                "PeezBasics", "Membership", "WalletPass",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictSettings
        ),
        // Chargily Pay (v2): members' online checkouts created and read back over its API, its webhooks checked.
        .target(
            name: "Chargily",
            dependencies: [
                "CardServices", "CardCrypto", "Membership", "PeezAPI",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // The shop's counter (peez counter): trust data, verdicts, the scan log, sales journaled and sent over HTTPS.
        .target(
            name: "CounterApp",
            dependencies: [
                "PeezBasics", "CardToken", "CardCrypto", "CardWire", "Membership", "PeezAPI", "CounterAssets",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictSettings
        ),
        // Renewal reminders: the daily run, its lease, the messages, and their sinks (JSON lines, signed webhooks).
        .target(
            name: "Reminders",
            dependencies: [
                "PeezBasics", "CardToken", "CardCrypto", "Membership",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            resources: [.embedInCode("reminder-templates.json")],
            swiftSettings: strictSettings
        ),

        // The HTTP API (Hummingbird): routes, auth, errors. Knows the storage interface, not the stores.
        .target(
            name: "CardServer",
            dependencies: [
                "PeezBasics", "CardToken", "CardCrypto", "CardWire", "Membership", "PeezAPI", "CardServices", "WalletPass",
                "CounterAssets", "ConsoleAssets", "Console", "ConsoleCharts",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),

        .target(
            name: "ServiceRuntime",
            dependencies: [
                "Membership", "CardServices", "WalletPass", "WalletPush", "Reminders",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "peez",
            dependencies: [
                "CardToken", "CardCrypto", "CardQR", "CardScan", "CardWire", "Membership", "MembershipSQL", "MembershipSQLite", "MembershipPostgres",
                "PeezBasics", "LedgerSeeding", "PeezAPI", "CardServices", "CounterApp", "Reminders", "CardServer", "WalletPass", "WalletPush",
                "Console", "ConsoleAssets", "ConsoleCharts", "ReportPDF", "Chargily",
                "ServiceRuntime",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "peez-bench",
            dependencies: [
                "CardToken", "CardCrypto", "CardQR", "CardScan", "WalletPass", "CPeezImageReader", "CPeezOpenSSL", "CPeezQRencode", "CPeezPNG",
            ],
            path: "Benchmarks/peez-bench",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "peez-http-ceiling",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird"), .product(name: "NIOPosix", package: "swift-nio")],
            path: "Benchmarks/http-ceiling",
            swiftSettings: strictSettings
        ),

        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: strictSettings),
        // Seeded runs of the service under faults, checked against the ledger's guarantees (`make soak`).
        .target(
            name: "Soak",
            dependencies: ["TestSupport", "PeezAPI", "PeezBasics", "CardCrypto", "CardToken"],
            path: "Tests/Soak",
            swiftSettings: strictSettings
        ),
        .executableTarget(name: "peez-soak", dependencies: ["Soak"], path: "Tests/SoakMain", swiftSettings: strictSettings),
        .testTarget(name: "CardTokenTests", dependencies: ["CardToken", "CardCrypto", "PeezBasics"], swiftSettings: strictSettings),
        .testTarget(name: "CardCryptoTests", dependencies: ["CardCrypto", "CardToken", "PeezBasics", "TestSupport"], swiftSettings: strictSettings),
        .testTarget(name: "CardWireTests", dependencies: ["CardWire", "CardCrypto", "CardToken", "TestSupport"], swiftSettings: strictSettings),
        .testTarget(name: "CardQRTests", dependencies: ["CardQR", "TestSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "CardScanTests",
            dependencies: ["CardScan", "CardQR", "CardCrypto", "CardToken", "PeezBasics"],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "WalletPassTests", dependencies: ["WalletPass", "CardCrypto", "CardToken", "TestSupport"], swiftSettings: strictSettings),
        .testTarget(
            name: "ConsoleTests",
            dependencies: ["Console", "ConsoleCharts", "ConsoleAssets", "PeezBasics", "CPeezRSVG", "ReportPDF", "Membership"],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "MembershipTests", dependencies: ["Membership", "PeezBasics"], swiftSettings: strictSettings),
        .testTarget(
            name: "MembershipStoreTests",
            dependencies: [
                "PeezBasics", "Membership", "MembershipSQL", "MembershipSQLite", "MembershipPostgres", "LedgerSeeding", "CardServices", "CardCrypto",
                "CardWire", "PeezAPI", "Console", "ConsoleAssets", "ConsoleCharts", "Chargily",
                .product(name: "NIOCore", package: "swift-nio"),
                "CardToken", "TestSupport",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CardServerTests",
            dependencies: [
                "CardServer", "WalletPass", "WalletPush", "PeezAPI", "CardServices", "CounterApp", "Reminders", "CardWire", "CardCrypto", "CardToken",
                "PeezBasics", "Console",
                "Membership",
                "MembershipSQL", "MembershipSQLite", "TestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            resources: [.copy("../../Docs/openapi.json")],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "PeezBasicsTests", dependencies: ["PeezBasics"], swiftSettings: strictSettings),
        .testTarget(name: "PeezAPITests", dependencies: ["PeezAPI", "Membership", "CardToken"], swiftSettings: strictSettings),
        .testTarget(
            name: "CounterAppTests",
            dependencies: ["CounterApp", "CardWire", "CardCrypto", "CardToken", "PeezBasics", "Membership", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "RemindersTests",
            dependencies: [
                "Reminders", "CardToken", "PeezBasics", "Membership", "TestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "PeezCLITests", dependencies: ["peez", "PeezAPI", "PeezBasics", "TestSupport", "Soak"], swiftSettings: strictSettings),
    ]
)
