import CardToken
public import Foundation
public import Membership

/// Fills a ledger with many realistic members for load tests and benchmarks: names, Algerian phone numbers,
/// the 16 neighbourhoods, a fifth of them in Arabic, registered over the past year, each with one to three
/// stacked periods whose coverage ends spread evenly over `spreadDays` around now (about 5 % of members are
/// due a reminder on any day with the default 180). Rows go in many at a time, in large transactions.
public struct DemoLedgerSeeder: Sendable {
    public var store: SQLMembershipStore
    public var spreadDays: Int64
    public var rowsPerStatement = 2_000
    public var membersPerTransaction = 20_000

    public init(store: SQLMembershipStore, spreadDays: Int64 = 180) {
        self.store = store
        self.spreadDays = spreadDays
    }

    static let givenNames = ["Ahmed", "Mohamed", "Yacine", "Karim", "Sofiane", "Amine", "Walid", "Nassim", "Fatima", "Amina", "Khadidja",
                             "Meriem", "Sara", "Imane", "Nour", "Yasmine", "Houari", "Bilal", "Lina", "Rania"]
    static let familyNames = ["Benali", "Bouzid", "Mansouri", "Belkacem", "Hadj", "Kaddour", "Mekki", "Boumediene", "Cherif", "Touati",
                              "Benaissa", "Zerrouki", "Larbi", "Saidi", "Mebarki", "Ould Ali"]

    /// Adds `count` members (and their periods) to the ledger; `progress` hears how many are in after each transaction.
    public func seed(members count: Int, now: Int64, progress: @Sendable (Int) -> Void = { _ in }) async throws {
        let database = store.database
        let run = String(UUID().uuidString.prefix(8)).lowercased()
        // Keys grow with the index (uuids, phones, emails, ids by registration day), so every index is appended
        // to at its end rather than written at random places: a million rows go in several times faster.
        let keyBase = (UInt64(now) & 0xFF_FFFF) << 24
        var periodCounter: UInt64 = 0
        let phoneBase = Int.random(in: 0..<50_000_000)
        var generator = SystemRandomNumberGenerator()
        // Membership ids continue each registration day's sequence.
        var sequences: [String: Int64] = [:]
        for row in try await database.read({ try await $0.query("SELECT day, last_sequence FROM membership_sequences", []) }) {
            sequences[try row.text("day")] = try row.int("last_sequence")
        }
        var done = 0
        while done < count {
            let chunk = min(membersPerTransaction, count - done)
            var memberRows: [[SQLValue]] = []
            var periodRows: [[SQLValue]] = []
            memberRows.reserveCapacity(chunk)
            for offset in 0..<chunk {
                let index = done + offset
                let registered = now - 86_400 * 365 + Int64(index * 365 / count) * 86_400 + 36_000
                let day = AlgiersCalendar.dayStamp(registered)
                let sequence = (sequences[day] ?? 0) + 1
                sequences[day] = sequence
                let uuid = Self.orderedUUID(keyBase + UInt64(index), &generator)
                let name = Self.givenNames[index % Self.givenNames.count] + " " + Self.familyNames[(index / 7) % Self.familyNames.count]
                let months = (0..<Int.random(in: 1...3, using: &generator)).map { _ in Int.random(in: 1...3, using: &generator) }
                // The coverage end is spread evenly around now; the periods lie back to back before it.
                let target = now - spreadDays * 43_200 + Int64.random(in: 0..<(spreadDays * 86_400), using: &generator)
                var start = target - Int64(months.reduce(0, +)) * 30 * 86_400
                for (seq, period) in months.enumerated() {
                    let end = AlgiersCalendar.adding(months: period, to: start)
                    periodCounter += 1
                    periodRows.append([.text(Self.orderedUUID(keyBase + periodCounter, &generator).uuidString), .text(uuid.uuidString), .int(Int64(seq + 1)), .int(Int64(period)),
                                       .int(Int64(period * Pricing.monthlyPriceDZD)), .text(SubscriptionPeriod.Source.inApp.rawValue), .null,
                                       .int(start - 86_400), .int(start), .int(end)])
                    start = end
                }
                memberRows.append([.text(uuid.uuidString), .text(Member.membershipID(registeredAt: registered, sequence: Int(sequence))),
                                   .text(name), .text(Self.phone((phoneBase + index) % 100_000_000)),
                                   .text("membre.\(Self.padded(index, 8)).\(run)@seed.peez.dz"), .text(Oran.neighbourhoods[index % Oran.neighbourhoods.count].id),
                                   .text(index % 5 == 0 ? "ar" : "fr"), .int(registered), .int(Int64(months.count)), .int(start), .int(Int64(months.count))])
            }
            let statements = Self.inserts("members (uuid, membership_id, name, phone, email, neighbourhood, language, created_at, ledger_version, coverage_end, last_period_seq)",
                                          memberRows, per: rowsPerStatement)
                + Self.inserts("periods (id, member_uuid, seq, months, amount_dzd, source, vendor_id, purchased_at, starts_at, ends_at)",
                                       periodRows, per: rowsPerStatement)
            try await database.write { db in
                for statement in statements { try await db.execute(statement.sql, statement.binds) }
            }
            done += chunk
            progress(done)
        }
        let days = sequences
        try await database.write { db in
            for (day, last) in days {
                try await db.execute(
                    "INSERT INTO membership_sequences (day, last_sequence) VALUES (?, ?) ON CONFLICT (day) DO UPDATE SET last_sequence = excluded.last_sequence",
                    [.text(day), .int(last)])
            }
        }
    }

    /// A UUID whose first six bytes are `order` (big-endian, 48 bits, as UUIDv7 puts its time), the rest random
    /// with the version 4 bits (Foundation's `UUID()` would also open /dev/urandom for each one on Linux).
    static func orderedUUID(_ order: UInt64, _ generator: inout SystemRandomNumberGenerator) -> UUID {
        let random = generator.next() as UInt64, more = generator.next() as UInt64
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: order >> (8 * (5 - index))) }
        for index in 6..<16 { bytes[index] = UInt8(truncatingIfNeeded: (index < 11 ? random : more) >> (8 * (index % 8))) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// `+2135` and eight digits (built by hand: `String(format:)` reads locale files on every call on Linux).
    static func phone(_ number: Int) -> String {
        "+2135" + padded(number, 8)
    }

    static func padded(_ number: Int, _ width: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// Multi-row INSERT statements of at most `per` rows each.
    static func inserts(_ target: String, _ rows: [[SQLValue]], per: Int) -> [SQLStatement] {
        stride(from: 0, to: rows.count, by: per).map { start in
            let slice = rows[start..<min(start + per, rows.count)]
            let placeholders = "(" + Array(repeating: "?", count: slice.first!.count).joined(separator: ", ") + ")"
            return SQLStatement("INSERT INTO \(target) VALUES " + Array(repeating: placeholders, count: slice.count).joined(separator: ", "),
                                slice.flatMap { $0 })
        }
    }
}
