public import Foundation
import Membership
public import MembershipSQL
import PeezBasics

/// Fills a ledger with many realistic members for load tests and benchmarks: names, Algerian phone numbers,
/// the 16 neighbourhoods, a fifth of them in Arabic, registered over the past year, each with one to three
/// stacked periods whose coverage ends spread evenly over `spreadDays` around now (about 5 % of members are
/// due a reminder on any day with the default 180). Rows go in many at a time, in large transactions.
public struct DemoLedgerSeeder: Sendable {
    public var store: SQLMembershipStore
    public var spreadDays: Int64
    public var membersPerTransaction = 100_000
    /// Members made at a time, one chunk ahead of the database.
    public var membersPerChunk = 20_000
    /// The shops the periods are sold at, in turn (see ``addShops(_:now:)``); none: sold in the app.
    public var shops: [UUID] = []

    public init(store: SQLMembershipStore, spreadDays: Int64 = 180) {
        self.store = store
        self.spreadDays = spreadDays
    }

    static let givenNames = [
        "Ahmed", "Mohamed", "Yacine", "Karim", "Sofiane", "Amine", "Walid", "Nassim", "Fatima", "Amina", "Khadidja",
        "Meriem", "Sara", "Imane", "Nour", "Yasmine", "Houari", "Bilal", "Lina", "Rania",
    ]
    static let familyNames = [
        "Benali", "Bouzid", "Mansouri", "Belkacem", "Hadj", "Kaddour", "Mekki", "Boumediene", "Cherif", "Touati",
        "Benaissa", "Zerrouki", "Larbi", "Saidi", "Mebarki", "Ould Ali",
    ]

    /// Adds `count` members (and their periods) to the ledger; `progress` hears how many are in after each transaction.
    /// Answers what writing the rows took and what each of the console's summaries took to be rebuilt after.
    ///
    /// The rows of the next transaction are made while the database writes the current one.
    @discardableResult
    public func seed(members count: Int, now: Int64, progress: @Sendable (Int) -> Void = { _ in }) async throws -> SeedTimes {
        let started = ContinuousClock.now
        let database = store.database
        var sequences: [String: Int64] = [:]
        for row in try await database.read({ try await $0.query("SELECT day, last_sequence FROM membership_sequences", []) }) {
            sequences[try row.text("day")] = try row.int("last_sequence")
        }
        let rows = RowPipeline(
            RowMaker(count: count, now: now, spreadDays: spreadDays, sequences: sequences, shops: shops.map(\.uuidString)),
            chunk: membersPerChunk
        )
        let perTransaction = membersPerTransaction
        var done = 0
        while done < count {
            // Large transactions: each one rewrites the pages of the coverage-end index it touches, nearly all.
            done += try await database.write { db in
                var added = 0
                while added < perTransaction, let chunk = await rows.take() {
                    try await db.insertRows(into: "members", columns: RowMaker.memberColumns, chunk.members)
                    try await db.insertRows(into: "periods", columns: RowMaker.periodColumns, chunk.periods)
                    added += chunk.members.count
                }
                return added
            }
            progress(done)
        }
        let days = await rows.sequences
        try await database.write { db in
            for (day, last) in days {
                try await db.execute(
                    "INSERT INTO membership_sequences (day, last_sequence) VALUES (?, ?) ON CONFLICT (day) DO UPDATE SET last_sequence = excluded.last_sequence",
                    [.text(day), .int(last)]
                )
            }
        }
        if !shops.isEmpty { try await store.accountBulkLoadedSales() }
        let written = started.duration(to: .now)
        return SeedTimes(rows: written, summaries: try await store.rebuildConsoleSummaries())
    }

    /// What a seeding took: writing the members and their periods (their indexes included), then rebuilding each
    /// of the console's summaries from them.
    public struct SeedTimes: Sendable {
        public var rows: Duration
        public var summaries: [SummaryRebuildTime]
    }

    /// Adds `count` shops (every category, every neighbourhood, in turn) and sells the periods seeded after at
    /// them, in turn.
    public mutating func addShops(_ count: Int, now: Int64) async throws {
        var rows: [[SQLValue]] = []
        for index in 0..<count {
            let id = UUID()
            let category = Oran.categories[index % Oran.categories.count]
            let place = Oran.neighbourhoods[(index / Oran.categories.count) % Oran.neighbourhoods.count]
            rows.append([.text(id.uuidString), .text("\(category.fr) \(place.fr) \(index + 1)"), .text(category.id), .text(place.id), .int(now)])
            shops.append(id)
        }
        let shopRows = rows
        try await store.database.write { db in
            try await db.insertRows(into: "vendors", columns: ["id", "name", "category", "neighbourhood", "created_at"], shopRows)
        }
    }

    /// Makes the rows one chunk ahead of the database: the next chunk is made while the current one is written.
    actor RowPipeline {
        private var maker: RowMaker
        private var next: Task<(RowMaker, RowMaker.Rows), Never>?
        private var start = 0
        private let chunk: Int

        init(_ maker: RowMaker, chunk: Int) {
            self.maker = maker
            self.chunk = chunk
            next = Self.make(maker, 0..<min(chunk, maker.count))
            start = min(chunk, maker.count)
        }

        /// The next chunk's rows, nil once every member is made.
        func take() async -> RowMaker.Rows? {
            guard let task = next else { return nil }
            let rows: RowMaker.Rows
            (maker, rows) = await task.value
            let range = start..<min(start + chunk, maker.count)
            next = range.isEmpty ? nil : Self.make(maker, range)
            start = range.upperBound
            return rows
        }

        var sequences: [String: Int64] { maker.sequences }

        private static func make(_ maker: RowMaker, _ range: Range<Int>) -> Task<(RowMaker, RowMaker.Rows), Never> {
            Task {
                var maker = maker
                let rows = maker.rows(range)
                return (maker, rows)
            }
        }
    }

    /// Makes the generated rows, one range of member indexes after another.
    struct RowMaker: Sendable {
        static let memberColumns = [
            "uuid", "membership_id", "name", "phone", "email", "neighbourhood", "language", "created_at",
            "ledger_version", "coverage_end", "last_period_seq", "search_key", "cohort_month",
        ]
        static let periodColumns = [
            "id", "member_uuid", "seq", "months", "amount_dzd", "source", "vendor_id", "purchased_at", "starts_at", "ends_at",
            "renews_end",
        ]
        typealias Rows = (members: [[SQLValue]], periods: [[SQLValue]])

        let count: Int
        let now: Int64
        let spreadDays: Int64
        let shops: [String]
        /// Membership ids continue each registration day's sequence.
        var sequences: [String: Int64]
        var periodCounter: UInt64 = 0
        var generator = SplitMix64(seed: UInt64.random(in: .min ... .max))
        /// Keys grow with the index (uuids, phones, emails, ids by registration day), so every index is appended
        /// to at its end rather than written at random places: a million rows go in several times faster.
        let keyBase: UInt64
        let phoneBase: Int
        let run: String

        init(count: Int, now: Int64, spreadDays: Int64, sequences: [String: Int64], shops: [String]) {
            self.shops = shops
            self.count = count
            self.now = now
            self.spreadDays = spreadDays
            self.sequences = sequences
            keyBase = (UInt64(now) & 0xFF_FFFF) << 24
            phoneBase = Int(generator.next() % 50_000_000)
            run = String(String(generator.next(), radix: 16).suffix(8))
        }

        mutating func rows(_ indexes: Range<Int>) -> Rows {
            var memberRows: [[SQLValue]] = []
            var periodRows: [[SQLValue]] = []
            memberRows.reserveCapacity(indexes.count)
            periodRows.reserveCapacity(indexes.count * 2)
            for index in indexes {
                let registered = now - 86_400 * 365 + Int64(index * 365 / count) * 86_400 + 36_000
                let day = AlgiersCalendar.dayStamp(registered)
                let sequence = (sequences[day] ?? 0) + 1
                sequences[day] = sequence
                let uuid = Self.orderedUUID(keyBase + UInt64(index), &generator)
                let name =
                    DemoLedgerSeeder.givenNames[index % DemoLedgerSeeder.givenNames.count] + " "
                    + DemoLedgerSeeder.familyNames[(index / 7) % DemoLedgerSeeder.familyNames.count]
                let months = (0..<Int.random(in: 1...3, using: &generator)).map { _ in Int.random(in: 1...3, using: &generator) }
                // The coverage end is spread evenly around now; the periods lie back to back before it.
                let target = now - spreadDays * 43_200 + Int64.random(in: 0..<(spreadDays * 86_400), using: &generator)
                var start = target - Int64(months.reduce(0, +)) * 30 * 86_400
                // The member's cohort: the month of the first sale, bought the day before its period starts.
                let cohort = AlgiersCalendar.month(ofDay: AlgiersCalendar.dayNumber(start - 86_400))
                for (seq, period) in months.enumerated() {
                    let end = AlgiersCalendar.adding(months: period, to: start)
                    periodCounter += 1
                    periodRows.append([
                        .text(Self.orderedUUID(keyBase + periodCounter, &generator)), .text(uuid), .int(Int64(seq + 1)), .int(Int64(period)),
                        .int(Int64(period * Pricing.monthlyPriceDZD)),
                        .text((shops.isEmpty ? SubscriptionPeriod.Source.inApp : .vendor).rawValue),
                        shops.isEmpty ? .null : .text(shops[Int(periodCounter % UInt64(shops.count))]),
                        .int(start - 86_400), .int(start), .int(end), seq == 0 ? .null : .int(start),
                    ])
                    start = end
                }
                let membershipID = Member.membershipID(registeredAt: registered, sequence: Int(sequence))
                let phone = "+2135" + DecimalText.zeroPadded((phoneBase + index) % 100_000_000, width: 8)
                memberRows.append([
                    .text(uuid), .text(membershipID), .text(name), .text(phone),
                    .text("membre.\(DecimalText.zeroPadded(index, width: 8)).\(run)@seed.peez.dz"),
                    .text(Oran.neighbourhoods[index % Oran.neighbourhoods.count].id),
                    .text(index % 5 == 0 ? "ar" : "fr"), .int(registered), .int(Int64(months.count)), .int(start), .int(Int64(months.count)),
                    .text(MemberSearchKey.key(name: name, phone: phone, membershipID: membershipID)), .int(cohort),
                ])
            }
            return (memberRows, periodRows)
        }

        /// A UUID's text (upper case, as Foundation writes it) whose first six bytes are `order` (big-endian,
        /// 48 bits, as UUIDv7 puts its time), the rest random with the version 4 bits.
        static func orderedUUID(_ order: UInt64, _ generator: inout SplitMix64) -> String {
            let random = generator.next()
            let more = generator.next()
            var bytes = [UInt8](repeating: 0, count: 16)
            for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: order >> (8 * (5 - index))) }
            for index in 6..<16 { bytes[index] = UInt8(truncatingIfNeeded: (index < 11 ? random : more) >> (8 * (index % 8))) }
            bytes[6] = bytes[6] & 0x0F | 0x40
            bytes[8] = bytes[8] & 0x3F | 0x80
            return Hex.uuidText(bytes, uppercase: true)
        }
    }
}
