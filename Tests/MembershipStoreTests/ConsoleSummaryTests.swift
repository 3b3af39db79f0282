import CardServices
import Foundation
import Membership
import MembershipSQL
import PeezBasics
import Testing

/// The console's summaries, kept by the write path in each change's own transaction, always equal what the
/// ledger's rows say (the rebuild the migration and the seeder run), whatever sales, cancellations, card
/// revocations and lapses came in between; and the console's searches and histories find what they should.
@Suite("Console summaries", .serialized)
struct ConsoleSummaryTests {
    /// Everything the summaries hold: each day's rows and the changes appended since, summed.
    static func summaries(_ store: SQLMembershipStore) async throws -> [String] {
        try await store.database.read { db in
            let sales = try await db.query(
                """
                SELECT day, vendor_id, CAST(SUM(sales) AS BIGINT) AS sales, CAST(SUM(months) AS BIGINT) AS months,
                    CAST(SUM(amount_dzd) AS BIGINT) AS amount_dzd, CAST(SUM(cancelled) AS BIGINT) AS cancelled
                FROM (SELECT day, vendor_id, sales, months, amount_dzd, cancelled FROM sales_days
                    UNION ALL SELECT day, vendor_id, sales, months, amount_dzd, cancelled FROM sales_day_changes) s
                GROUP BY day, vendor_id ORDER BY day, vendor_id
                """,
                []
            ).map {
                "sales \(try $0.int("day")) \(try $0.text("vendor_id")) \(try $0.int("sales")) \(try $0.int("months")) \(try $0.int("amount_dzd")) \(try $0.int("cancelled"))"
            }
            let coverage = try await db.query(
                """
                SELECT day, CAST(SUM(ending) AS BIGINT) AS ending, CAST(SUM(renewed) AS BIGINT) AS renewed
                FROM (SELECT day, ending, renewed FROM coverage_days UNION ALL SELECT day, ending, renewed FROM coverage_day_changes) c
                GROUP BY day HAVING SUM(ending) <> 0 OR SUM(renewed) <> 0 ORDER BY day
                """,
                []
            ).map { "coverage \(try $0.int("day")) \(try $0.int("ending")) \(try $0.int("renewed"))" }
            let figures = try await db.query(
                """
                SELECT day, kind, cohort, detail, CAST(SUM(members) AS BIGINT) AS members, CAST(SUM(dzd) AS BIGINT) AS dzd
                FROM (SELECT day, kind, cohort, detail, members, dzd FROM subscription_days
                    UNION ALL SELECT day, kind, cohort, detail, members, dzd FROM subscription_day_changes) f
                GROUP BY day, kind, cohort, detail HAVING SUM(members) <> 0 OR SUM(dzd) <> 0 ORDER BY day, kind, cohort, detail
                """,
                []
            ).map {
                "figures \(try $0.int("day")) \(try $0.text("kind")) \(try $0.int("cohort")) \(try $0.text("detail")) \(try $0.int("members")) \(try $0.int("dzd"))"
            }
            return sales.filter { !$0.hasSuffix(" 0 0 0 0") } + coverage + figures
        }
    }

    /// How many changes are appended and not yet folded.
    static func unfolded(_ store: SQLMembershipStore) async throws -> Int64 {
        try await store.database.read { db in
            try await db.query(
                """
                SELECT (SELECT COUNT(*) FROM sales_day_changes) + (SELECT COUNT(*) FROM coverage_day_changes)
                    + (SELECT COUNT(*) FROM subscription_day_changes) AS count
                """,
                []
            )[0].int("count")
        }
    }

    @Test(arguments: StoreKind.available)
    func theWritePathKeepsTheSummariesEqualToARebuildFromTheLedger(kind: StoreKind) async throws {
        try await kind.withStore { store in
            var ledger = try await RandomLedger(store: store, shops: 3, members: 10)
            var now = Sample.january31
            for _ in 0..<120 {
                // Hours to weeks pass: members lapse, renew late, renew early.
                now += Int64.random(in: 3_600...(86_400 * 20), using: &ledger.generator)
                let member = ledger.anyMember()
                switch Int.random(in: 0..<10, using: &ledger.generator) {
                case 0..<6: try await ledger.sell(member, now: now)
                case 6..<8: try await ledger.cancelAnyPeriod(of: member, now: now)
                default: try await ledger.revokeCards(of: member, now: now)
                }
            }
            let kept = try await Self.summaries(store)
            #expect(!kept.isEmpty)
            // Folding moves the appended changes into the days' rows and changes no figure.
            #expect(try await Self.unfolded(store) > 0)
            #expect(try await store.foldConsoleSummaries() > 0)
            #expect(try await Self.unfolded(store) == 0)
            #expect(try await Self.summaries(store) == kept)
            let rebuilt = try await store.rebuildConsoleSummaries()
            #expect(try await Self.summaries(store) == kept)
            // What the rebuild took is told per summary, each once, its changes' table counted with it.
            #expect(
                rebuilt.map(\.summary) == [
                    "sales_days", "coverage_days", "shared_sightings", "wallet_tallies", "reminder_days", "subscription_days", "members.cohort_month",
                ]
            )
        }
    }

    @Test(arguments: StoreKind.available)
    func aRenewalCountsOnTheDayThePaidTimeWasToEndAndItsCancellationTakesItBack(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let desk = try SaleDesk(store: store)
            let (vendor, member) = try await Sample.vendorAndMember(in: store)
            let first = try await desk.sell(member, vendor: vendor, months: 1, now: Sample.january31)
            let end = AlgiersCalendar.dayNumber(first.coverageEnd)
            #expect(try await store.coverageDays(from: end, to: end) == [CoverageDay(day: end, ending: 1, renewed: 0)])
            let renewal = try await desk.sell(member, vendor: vendor, months: 2, now: first.coverageEnd - 86_400)
            let newEnd = AlgiersCalendar.dayNumber(renewal.coverageEnd)
            #expect(try await store.coverageDays(from: end, to: end) == [CoverageDay(day: end, ending: 0, renewed: 1)])
            #expect(try await store.coverageDays(from: newEnd, to: newEnd) == [CoverageDay(day: newEnd, ending: 1, renewed: 0)])
            let saleDay = AlgiersCalendar.dayNumber(first.coverageEnd - 86_400)
            #expect(try await store.salesByShop(from: saleDay, to: saleDay).map(\.sales) == [1])
            _ = try await store.cancelPeriod(id: renewal.period.id, now: first.coverageEnd - 3_600)
            #expect(try await store.coverageDays(from: end, to: end) == [CoverageDay(day: end, ending: 1, renewed: 0)])
            #expect(try await store.coverageDays(from: newEnd, to: newEnd).allSatisfy { $0.ending == 0 && $0.renewed == 0 })
            let cancelled = try await store.salesByShop(from: saleDay, to: saleDay)
            #expect(cancelled.map(\.sales) == [0] && cancelled.map(\.cancelled) == [1] && cancelled.map(\.amountDZD) == [0])
        }
    }

    /// Three sales bought ahead, each renewing the one before: cancelling the first leaves the second renewing
    /// nothing and moves the third's renewal to the second's new end; the days count each member due once.
    @Test(arguments: StoreKind.available)
    func cancellingAnEarlierSaleMovesTheRenewalsAfterItAndAFirstSaleLeftRenewsNothing(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let desk = try SaleDesk(store: store)
            let (vendor, member) = try await Sample.vendorAndMember(in: store)
            let first = try await desk.sell(member, vendor: vendor, months: 1, now: Sample.january31)
            let second = try await desk.sell(member, vendor: vendor, months: 1, now: Sample.january31 + 3_600)
            let third = try await desk.sell(member, vendor: vendor, months: 1, now: Sample.january31 + 7_200)
            _ = try await store.cancelPeriod(id: first.period.id, now: Sample.january31 + 10_800)
            let periods = try await store.periods(memberUUID: member.uuid).filter { $0.cancelledAt == nil }
            #expect(periods.map(\.id) == [second.period.id, third.period.id])
            let days = [first.coverageEnd, second.coverageEnd, third.coverageEnd, periods[0].endsAt, periods[1].endsAt].map(AlgiersCalendar.dayNumber)
            let counted = try await store.coverageDays(from: days.min()!, to: days.max()!).filter { $0.ending != 0 || $0.renewed != 0 }
            // Due: once on the second's new end (renewed by the third), once on the third's new end (ending).
            #expect(
                counted == [
                    CoverageDay(day: AlgiersCalendar.dayNumber(periods[0].endsAt), ending: 0, renewed: 1),
                    CoverageDay(day: AlgiersCalendar.dayNumber(periods[1].endsAt), ending: 1, renewed: 0),
                ]
            )
            let stored = try await store.database.read { db in
                try await db.query("SELECT renews_end FROM periods WHERE member_uuid = ? ORDER BY seq", [.text(member.uuid.uuidString)])
                    .map { try $0.optionalInt("renews_end") }
            }
            #expect(stored.dropFirst() == [nil, periods[0].endsAt])
            let kept = try await Self.summaries(store)
            try await store.rebuildConsoleSummaries()
            #expect(try await Self.summaries(store) == kept)

            // A ledger written before the fix (the renewals as sold, the days counted from them): migration 020
            // repairs both.
            _ = try await store.database.write { db in
                try await db.execute("UPDATE periods SET renews_end = ? WHERE id = ?", [.int(first.coverageEnd), .text(second.period.id.uuidString)])
                try await db.execute("UPDATE periods SET renews_end = ? WHERE id = ?", [.int(second.coverageEnd), .text(third.period.id.uuidString)])
                try await db.execute("INSERT INTO coverage_day_changes (day, ending, renewed) VALUES (?, 0, 1)", [.int(days[0])])
                try await db.execute("DELETE FROM schema_migrations WHERE name = '020_renewed_ends'", [])
            }
            #expect(try await Self.summaries(store) != kept)
            try await store.migrate(now: Sample.january31 + 14_400)
            #expect(try await Self.summaries(store) == kept)
        }
    }

    @Test(arguments: StoreKind.available)
    func membersAreFoundByAnyPartOfTheirNamePhoneOrMembershipIDWhateverTheCaseAccentsOrWrittenForm(kind: StoreKind) async throws {
        try await kind.withStore { store in
            func add(_ name: String, _ phone: String) async throws -> Member {
                try await store.createMember(
                    MemberDraft(uuid: UUID(), name: name, phone: phone, email: "\(phone)@example.dz", neighbourhood: "usto"),
                    now: 1_000
                ).member
            }
            let amina = try await add("Amina Benali", "+213551234567")
            _ = try await add("Amine Touati", "+213551234568")
            _ = try await add("أمينة بن علي", "+213551234569")
            _ = try await add("Émilie Ouëdraogo", "+213661000001")
            func names(_ text: String) async throws -> [String] {
                try await store.searchMembers(try #require(MemberSearch(text)), limit: 20).map(\.member.name)
            }
            #expect(try await names("ami") == ["Amina Benali", "Amine Touati"])
            #expect(try await names("AMINA") == ["Amina Benali"])
            #expect(try await names("benali") == ["Amina Benali"], "a surname")
            #expect(try await names("ouat") == ["Amine Touati"], "inside a word")
            #expect(try await names("emilie") == ["Émilie Ouëdraogo"], "without its accents")
            #expect(try await names("ÉMILIE OUE") == ["Émilie Ouëdraogo"], "in capitals, with them")
            #expect(try await names("أمينة") == ["أمينة بن علي"])
            #expect(try await names("امينه") == ["أمينة بن علي"], "without hamza, teh marbuta written as heh")
            #expect(try await names("بن علي") == ["أمينة بن علي"])
            #expect(try await names("0551234567") == ["Amina Benali"])
            #expect(try await names("+213 551 23 45 67") == ["Amina Benali"])
            #expect(try await names("00213551234567") == ["Amina Benali"])
            #expect(try await names("55 12 34 56") == ["Amina Benali", "Amine Touati", "أمينة بن علي"], "a part of a phone")
            #expect(try await names("6610") == ["Émilie Ouëdraogo"])
            #expect(try await names(amina.membershipID.lowercased()) == ["Amina Benali"])
            #expect(try await names(String(amina.membershipID.prefix(12))).count == 4, "the start of a membership id")
            #expect(try await names(String(amina.membershipID.suffix(14))) == ["Amina Benali"], "its day and number")
            #expect(try await names("e") == ["Émilie Ouëdraogo"], "one letter: the start of a name")
            #expect(try await names("Zz%_") == [])
            #expect(try await names("i%e") == [], "% is a character, not a wildcard")
            #expect(MemberSearch("   ") == nil)
            #expect(MemberSearch("a\u{0}b") == nil)

            _ = try await store.updateMember(uuid: amina.uuid, patch: MemberPatch(name: "Amina Khelifa"), now: 2_000)
            #expect(try await names("benali") == [], "a rename takes the old name out of the index")
            #expect(try await names("khelif") == ["Amina Khelifa"])
        }
    }

    @Test(arguments: StoreKind.available)
    func membersWrittenBeforeTheSearchKeysAreGivenThemAtStart(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let member = try await store.createMember(
                MemberDraft(uuid: UUID(), name: "Yacine Saïdi", phone: "+213770000001", email: "y@example.dz", neighbourhood: "usto"),
                now: 1_000
            ).member
            // As a row written before migration 019 is: no key, and so in no index.
            _ = try await store.database.write { db in
                try await db.execute("UPDATE members SET search_key = '' WHERE uuid = ?", [.text(member.uuid.uuidString)])
            }
            if store.database.dialect.partSearch == .trigramTable {
                _ = try await store.database.write { db in try await db.execute("DELETE FROM member_search", []) }
            }
            #expect(try await store.searchMembers(try #require(MemberSearch("saidi")), limit: 20).isEmpty)
            try await store.migrate(now: 2_000)
            #expect(try await store.searchMembers(try #require(MemberSearch("saidi")), limit: 20).map(\.member.uuid) == [member.uuid])
        }
    }

    @Test(arguments: StoreKind.available)
    func aOneTimeConsoleLinkOpensOneSessionThatEndsWithItsCredential(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let admin = try await CredentialService(store: store, now: WallClock { 1_000 }).create(
                role: .admin,
                vendorID: nil,
                label: "ops",
                by: .commandLine()
            )
            let link = ConsoleGrant(
                hash: "link-hash",
                actor: "console (ops)",
                actorCredentialID: admin.credential.id,
                createdAt: 1_000,
                expiresAt: 1_600
            )
            let made = AuditEntry(
                at: 1_000,
                actor: "peez admin (ops)",
                actorCredentialID: nil,
                address: "local",
                action: "console.link",
                target: "",
                detail: ""
            )
            try await store.saveConsoleLink(link, audit: made)
            func open(at time: Int64) async throws -> ConsoleGrant? {
                try await store.openConsoleSession(
                    linkHash: "link-hash",
                    sessionHash: "session-hash",
                    address: "127.0.0.1",
                    now: time,
                    expiresAt: 9_000
                )
            }
            #expect(try await open(at: 1_600) == nil, "expired")
            let session = try #require(try await open(at: 1_100))
            #expect(
                session
                    == ConsoleGrant(
                        hash: "session-hash",
                        actor: link.actor,
                        actorCredentialID: admin.credential.id,
                        createdAt: 1_100,
                        expiresAt: 9_000
                    )
            )
            #expect(try await open(at: 1_101) == nil, "used once")
            #expect(
                try await store.audit(after: 0, limit: 100).map(\.action).suffix(2) == ["console.link", "console.sign_in"],
                "each with its entry"
            )
            #expect(try await store.consoleSession(hash: "session-hash", now: 2_000) == session)
            #expect(try await store.consoleSession(hash: "session-hash", now: 9_000) == nil)
            try await store.inCredentialTransaction { try await $0.revoke(credentials: [admin.credential.id], at: 2_500) }
            #expect(try await store.consoleSession(hash: "session-hash", now: 3_000) == nil)
            try await store.endConsoleSession(hash: "session-hash", now: 3_100, address: "127.0.0.1")
            try await store.endConsoleSession(hash: "session-hash", now: 3_200, address: "127.0.0.1")
            #expect(
                try await store.audit(after: 0, limit: 100).filter { $0.action == "console.sign_out" }.count == 1,
                "signed out once, audited once"
            )
        }
    }

    @Test(arguments: StoreKind.available)
    func remindersAreCountedOnTheDayTheyEndByChannelAndOutcome(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let desk = try SaleDesk(store: store)
            let vendor = try await store.createVendor(name: "V", category: "boucherie", neighbourhood: "usto", now: 1)
            var ends: [Int64] = []
            for index in 0..<3 {
                let member = try await store.createMember(Sample.draft(index), now: 1_000).member
                ends.append(try await desk.sell(member, vendor: vendor, months: 1, now: Sample.january31).coverageEnd)
            }
            let now = ends[0] - 2 * 86_400
            #expect(try await store.recordDueReminders(channel: "push", now: now, batchSeconds: 3_600) == 3)
            let leased = try await store.leaseReminders(channel: "push", owner: "a", limit: 10, now: now, leaseSeconds: 60)
            let outcomes: [ReminderOutcome] = [.delivered, .failed("410 Gone"), .retry("503", sent: false, retryAfter: nil)]
            _ = try await store.settleReminders(
                zip(leased.map(\.reminder), outcomes).map { ($0, $1) },
                owner: "a",
                schedule: RetrySchedule(),
                now: now
            )
            let day = AlgiersCalendar.dayNumber(now)
            let counted = try await store.reminderDays(from: day, to: day).map { "\($0.source) \($0.outcome) \($0.count)" }
            #expect(counted == ["push delivered 1", "push failed 1", "push retried 1"])
            let outbox = try await store.reminderOutbox()
            #expect(outbox.map(\.channel) == ["push"] && outbox.map(\.waiting) == [1])
        }
    }

    @Test(arguments: StoreKind.available)
    func aCounterSyncIsKeptToTheLatestTime(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let vendor = try await store.createVendor(name: "Épicerie", category: "epicerie", neighbourhood: "usto", now: 1)
            let issued = try await CredentialService(store: store, now: WallClock { 1_000 }).create(
                role: .vendor,
                vendorID: vendor.id,
                label: "phone",
                by: .commandLine()
            )
            #expect(try await store.counterDevices().map(\.lastSyncAt) == [nil])
            try await store.noteCounterSync(credentialID: issued.credential.id, at: 5_000)
            try await store.noteCounterSync(credentialID: issued.credential.id, at: 4_000)
            let devices = try await store.counterDevices()
            #expect(devices.map(\.lastSyncAt) == [5_000] && devices.map(\.vendorName) == ["Épicerie"])
        }
    }

    @Test(arguments: StoreKind.available)
    func walletTalliesCountPassesDevicesAndGoogleObjectsOnceEach(kind: StoreKind) async throws {
        try await kind.withStore { store in
            var members: [Member] = []
            for index in 0..<3 { members.append(try await store.createMember(Sample.draft(index), now: 1_000).member) }
            for member in members { _ = try await store.issueWalletPass(member: member.uuid, token: "t", tokenHash: "h", now: 2_000) }
            // Downloaded again: the same pass, its token kept.
            #expect(try await store.issueWalletPass(member: members[0].uuid, token: "other", tokenHash: "h2", now: 3_000) == "t")
            #expect(try await store.registerWalletDevice("phone-1", member: members[0].uuid, pushToken: "p", now: 3_000) == .created)
            #expect(try await store.registerWalletDevice("phone-1", member: members[0].uuid, pushToken: "p2", now: 3_100) == .updated)
            #expect(try await store.registerWalletDevice("phone-2", member: members[1].uuid, pushToken: "p", now: 3_000) == .created)
            #expect(try await store.unregisterWalletDevice("phone-2", member: members[1].uuid))
            #expect(try await !store.unregisterWalletDevice("phone-2", member: members[1].uuid))
            try await store.recordGoogleWalletObject(member: members[2].uuid, shownVersion: 0, now: 4_000)
            try await store.recordGoogleWalletObject(member: members[2].uuid, shownVersion: 0, now: 4_001)
            let kept = try await store.walletTallies()
            #expect(kept.applePasses == 3 && kept.appleDevices == 1 && kept.googleObjects == 1)
            try await store.rebuildConsoleSummaries()
            #expect(try await store.walletTallies() == kept)
        }
    }

    @Test(arguments: StoreKind.available)
    func salesAndCancellationsRacingEachOtherKeepTheSummariesExact(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let desk = try SaleDesk(store: store)
            let vendor = try await store.createVendor(name: "Shop", category: "boucherie", neighbourhood: "usto", now: 1_000)
            var members: [Member] = []
            for index in 0..<4 { members.append(try await store.createMember(Sample.draft(index), now: 1_000).member) }
            // Forty sales at once, ten for each member, on one shop's day, while folds running beside them move their
            // changes into the day's rows: each change is counted once, folded or not.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    let member = members[index % members.count]
                    group.addTask { _ = try await desk.sell(member, vendor: vendor, months: 1 + index % 3, now: Sample.january31 + Int64(index)) }
                    if index % 4 == 0 { group.addTask { _ = try await store.foldConsoleSummaries() } }
                }
                try await group.waitForAll()
            }
            let periods = try await store.periods(memberUUID: members[0].uuid)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for period in periods.prefix(5) {
                    group.addTask { _ = try await store.cancelPeriod(id: period.id, now: Sample.january31 + 3_600) }
                }
                for member in members.dropFirst() {
                    group.addTask { _ = try await desk.sell(member, vendor: vendor, months: 2, now: Sample.january31 + 3_600) }
                    group.addTask { _ = try await store.foldConsoleSummaries() }
                }
                try await group.waitForAll()
            }
            let kept = try await Self.summaries(store)
            let day = AlgiersCalendar.dayNumber(Sample.january31)
            #expect(try await store.salesByShop(from: day, to: day).map(\.sales) == [38])
            // The shop's balance, read from its stretches and what is not folded yet, is its ledger's.
            let owed = try await store.shopDaysFromLedger().values.joined().reduce(0) { $0 + $1.balanceChange }
            #expect(try await store.shopBalances().map(\.balanceDZD) == [owed])
            _ = try await store.foldConsoleSummaries()
            #expect(try await Self.unfolded(store) == 0)
            #expect(try await Self.summaries(store) == kept)
            #expect(try await store.shopBalances().map(\.balanceDZD) == [owed])
            try await store.rebuildConsoleSummaries()
            #expect(try await Self.summaries(store) == kept)
        }
    }
}
