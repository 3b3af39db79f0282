import ArgumentParser
import Foundation
import LedgerSeeding
import MembershipSQL

extension Peez {
    /// `peez dev`: tools for load tests and benchmarks, never for a production ledger.
    struct Dev: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Development tools: fill a ledger with generated members for load tests.",
            discussion: """
                Never point these at a production ledger.

                Example:
                  peez dev seed --members 1000000 --database var/load.sqlite
                """,
            subcommands: [Seed.self]
        )
    }
}

extension Peez.Dev {
    /// `peez dev seed`: many realistic members.
    struct Seed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add generated members with stacked periods to a ledger (SQLite or PostgreSQL), for load tests.",
            discussion: """
                Members get names, phone numbers, neighbourhoods and a language (a fifth Arabic), registration days over \
                the past year, and one to three back-to-back periods whose coverage ends spread evenly over --spread-days \
                around now: with 180, about 5 % of members are due a reminder on any day. Never run it on a real ledger.

                Example:
                  peez dev seed --members 1000000 --database var/load.sqlite
                  peez dev seed --members 1000000 --shops 200 --scans 10000000
                """
        )

        @OptionGroup var store: StoreOptions

        @Option(help: "How many members to add.")
        var members: Int

        @Option(help: "Days over which coverage ends are spread, centred on now.")
        var spreadDays: Int64 = 180

        @Option(help: "Shops to add, the periods sold at them in turn (0: sold in the app).")
        var shops = 0

        @Option(help: "Counter scans to add over the last 90 days at those shops (one in a thousand a card seen at two).")
        var scans = 0

        @Option(help: "Act as if it were this time (ISO-8601 or epoch seconds).")
        var now: String?

        func validate() throws {
            try store.requireNamedLedger("peez dev seed")
            guard (1...10_000_000).contains(members) else { throw ValidationError("--members must be 1 to 10000000") }
            guard (2...3_650).contains(spreadDays) else { throw ValidationError("--spread-days must be 2 to 3650") }
            guard (0...10_000).contains(shops) else { throw ValidationError("--shops must be 0 to 10000") }
            guard (0...100_000_000).contains(scans) else { throw ValidationError("--scans must be 0 to 100000000") }
            if scans > 0, shops < 2 { throw ValidationError("--scans needs --shops 2 or more") }
            if let now, CardDates.parseExpiry(now) == nil { throw ValidationError("--now '\(now)' is not ISO-8601 or epoch seconds") }
        }

        func run() async throws {
            let (count, spread, moment) = (members, spreadDays, now.flatMap(CardDates.parseExpiry) ?? CardDates.now())
            let (shopCount, scanCount) = (shops, scans)
            let start = ContinuousClock.now
            try await store.withStore(creating: true) { store in
                var seeder = DemoLedgerSeeder(store: store, spreadDays: spread)
                try await seeder.addShops(shopCount, now: moment)
                let times = try await seeder.seed(members: count, now: moment) { done in
                    if done % 100_000 < 20_000 || done == count { printError("seeded \(done) of \(count) members") }
                }
                let rebuilt = times.summaries.map(\.duration).reduce(.zero, +)
                printError("members and periods written in \(Self.seconds(times.rows)); summaries rebuilt in \(Self.seconds(rebuilt)):")
                for summary in times.summaries { printError("  \(summary.summary) \(Self.seconds(summary.duration))") }
                guard scanCount > 0 else { return }
                try await ScanSeeder(store: store).seed(scans: scanCount, shops: seeder.shops, now: moment) { done in
                    if done % 1_000_000 < 201_000 || done == scanCount { printError("seeded \(done) of \(scanCount) scans") }
                }
            }
            let seeded = scanCount > 0 ? "\(count) members and \(scanCount) scans" : "\(count) members"
            printError("seeded \(seeded) in \(Self.seconds(start.duration(to: .now)))")
        }

        private static func seconds(_ duration: Duration) -> String {
            let (seconds, attoseconds) = duration.components
            return String(format: "%.1f s", Double(seconds) + Double(attoseconds) / 1e18)
        }
    }
}
