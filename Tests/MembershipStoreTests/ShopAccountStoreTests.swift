import CardServices
import Foundation
import Membership
import PeezAPI
import PeezBasics
import TestSupport
import Testing

@testable import MembershipSQL

/// The shops' cash accounts on both stores, driven through the service's use cases: every sale and cancellation
/// leaves its entry in its own transaction, the balance is the sum of the entries however they are folded, the
/// team's entries are recorded once per key and refused when they make no sense, two remittances at once never
/// take more than the shop owes, and migration 026 builds the accounts of a ledger that had sales before it.
@Suite("Shop accounts in the ledger", .serialized)
struct ShopAccountStoreTests {
    static let admin = AuditActor(label: "ops laptop", credentialID: nil, address: "192.0.2.7")

    /// Every shop's days as its account holds them.
    static func accountDays(_ store: SQLMembershipStore, _ vendors: [Vendor]) async throws -> [UUID: [ShopDayFigures]] {
        var days: [UUID: [ShopDayFigures]] = [:]
        for vendor in vendors {
            let figures = try await store.shopDays(of: vendor.id, from: 0, to: 1_000_000)
            if !figures.isEmpty { days[vendor.id] = figures }
        }
        return days
    }

    static func service(_ store: SQLMembershipStore, at time: Int64) -> ShopAccountService {
        ShopAccountService(store: store, now: WallClock { time })
    }

    static func remittance(_ amount: Int, override: Bool? = nil) -> RemittanceRequest {
        RemittanceRequest(amount_dzd: amount, method: .cash, reference: "R-1", received_by: "Karim", override: override)
    }

    @Test(arguments: StoreKind.available)
    func everySaleAndCancellationIsInItsShopsAccountAsTheLedgerSays(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            var ledger = try await RandomLedger(store: store, shops: 3, members: 12)
            var now = Sample.january31
            for step in 0..<120 {
                now += 600
                let member = ledger.anyMember()
                if step % 5 == 4 { try await ledger.cancelAnyPeriod(of: member, now: now) } else { try await ledger.sell(member, now: now) }
                if step % 40 == 39 { _ = try await store.foldConsoleSummaries() }
            }
            let expected = try await store.shopDaysFromLedger()
            #expect(try await Self.accountDays(store, ledger.vendors) == expected)
            _ = try await store.foldConsoleSummaries()
            #expect(try await Self.accountDays(store, ledger.vendors) == expected)
            try await store.rebuildShopAccounts()
            #expect(try await Self.accountDays(store, ledger.vendors) == expected)
            let sold = expected.values.joined().reduce(0) { $0 + $1.salesDZD - $1.cancellationsDZD }
            let balances = try await store.shopBalances()
            #expect(balances.reduce(0) { $0 + $1.balanceDZD } == sold)
            #expect(Set(balances.map(\.vendorID)) == Set(expected.keys))
        }
    }

    @Test(arguments: StoreKind.available)
    func aCommissionAppliesFromItsDayOnAndACancellationTakesItBack(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (vendor, member) = try await Sample.vendorAndMember(in: store)
            let desk = try SaleDesk(store: store)
            let today = AlgiersCalendar.dayNumber(Sample.january31)
            let service = Self.service(store, at: Sample.january31)
            _ = try await service.setCommission(
                CommissionRequest(from: AlgiersCalendar.dayText(today + 1), basis_points: 550),
                vendorID: vendor.id,
                by: Self.admin
            )
            _ = try await service.setCommission(
                CommissionRequest(from: AlgiersCalendar.dayText(today + 2), per_month_dzd: 20),
                vendorID: vendor.id,
                by: Self.admin
            )
            try await desk.sell(member, vendor: vendor, months: 1, now: Sample.january31)
            let second = try await desk.sell(member, vendor: vendor, months: 3, now: Sample.january31 + 86_400)
            try await desk.sell(member, vendor: vendor, months: 2, now: Sample.january31 + 2 * 86_400)
            _ = try await store.cancelPeriod(id: second.period.id, now: Sample.january31 + 3 * 86_400)
            let entries = try await store.shopEntries(of: vendor.id, after: 0, limit: 10)
            #expect(entries.map(\.kind) == [.sale, .sale, .sale, .cancellation])
            // 5.5 % of 900 is 49.5: halves go up. 20 DZD a month for 2 months.
            #expect(entries.map(\.commissionDZD) == [0, 50, 40, -50])
            #expect(entries.map(\.amountDZD) == [300, 900, 600, -900])
            #expect(ShopCommission(fromDay: 0, basisPoints: 550, perMonthDZD: 0, setAt: 0, setBy: "").commission(amountDZD: 900, months: 3) == 50)
            #expect(try await store.shopBalance(of: vendor.id, before: today + 10) == 300 + 600 - 40)
            #expect(try await store.shopDaysFromLedger()[vendor.id] == Self.accountDays(store, [vendor])[vendor.id])
            #expect(
                try await store.audit(after: 0, limit: 10).filter { $0.action == "account.commission" }.map(\.detail) == [
                    "5.5 % of each sale from \(AlgiersCalendar.dayText(today + 1))",
                    "20 DZD per month sold from \(AlgiersCalendar.dayText(today + 2))",
                ]
            )
        }
    }

    @Test(arguments: StoreKind.available)
    func eachShopsBalanceOverTimeStartsFromWhatItOwedBeforeTheRange(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (vendor, member) = try await Sample.vendorAndMember(in: store)
            let desk = try SaleDesk(store: store)
            let day = AlgiersCalendar.dayNumber(Sample.january31)
            for offset in [0, 2, 5] { try await desk.sell(member, vendor: vendor, months: 1, now: Sample.january31 + Int64(offset) * 86_400) }
            let history = try await store.shopBalanceHistory(from: day + 1, to: day + 4, owingMost: 9)[vendor.id]?.map { [$0.day, $0.balanceDZD] }
            // Owed 300 before the range (its first day), 600 from the third day; the sale after the range is not in it.
            #expect(history == [[day + 1, 300], [day + 2, 600]])
            #expect(try await store.shopBalanceHistory(from: day + 6, to: day + 9, owingMost: 9)[vendor.id]?.map(\.balanceDZD) == [900])
            // 400 handed over pays the oldest first: what is still owed is the third day's sale and part of the second's.
            _ = try await Self.service(store, at: Sample.january31 + 6 * 86_400).recordRemittance(
                Self.remittance(400),
                vendorID: vendor.id,
                keyScope: "a",
                key: "r",
                by: Self.admin
            )
            for folded in [false, true] {
                if folded { _ = try await store.foldConsoleSummaries() }
                let balance = try #require(try await store.shopBalances().first)
                let days = try await store.shopDays(of: vendor.id, from: 0, to: 1_000_000).map { ($0.day, $0.salesDZD - $0.commissionDZD) }
                #expect(balance.balanceDZD == 500 && balance.oldestUnremittedDay == day + 2)
                #expect(balance.oldestUnremittedDay == ShopBalance.oldestUnremittedDay(balance: 500, days: days), "the SQL and the domain agree")
            }
        }
    }

    /// The balances and the plot read a shop's figures per stretch of days, the days of one stretch, and the figures
    /// not folded yet: over 300 days of sales with a commission (many stretches), folded in two goes and some not
    /// (one day both), and remittances from a little to more than all, every shop's balance, its oldest unremitted
    /// day and its balance day by day are what a computation over every one of its days gives.
    @Test(arguments: StoreKind.available)
    func balancesReadFromStretchesAreWhatEveryDayGives(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (vendor, member) = try await Sample.vendorAndMember(in: store)
            let desk = try SaleDesk(store: store)
            let first = AlgiersCalendar.dayNumber(Sample.january31)
            _ = try await Self.service(store, at: Sample.january31 - 86_400).setCommission(
                CommissionRequest(from: AlgiersCalendar.dayText(first), basis_points: 800),
                vendorID: vendor.id,
                by: Self.admin
            )
            for offset in 0..<300 where offset % 7 != 3 {
                try await desk.sell(member, vendor: vendor, months: 1 + offset % 3, now: Sample.january31 + Int64(offset) * 86_400)
                if offset == 90 || offset == 200 { _ = try await store.foldConsoleSummaries() }
            }
            // A sale on the last folded day, not folded: the day's figures are in both tables.
            try await desk.sell(member, vendor: vendor, months: 1, now: Sample.january31 + 200 * 86_400 + 60)
            var time = Sample.january31 + 300 * 86_400
            for (step, amount) in [0, 1_000, 30_000, 60_000, 40_000, 22_000, 5_000].enumerated() {
                if amount > 0 {
                    time += 60
                    _ = try await Self.service(store, at: time).recordRemittance(
                        Self.remittance(amount, override: true),
                        vendorID: vendor.id,
                        keyScope: "walk",
                        key: "r\(step)",
                        by: Self.admin
                    )
                }
                let days = try await store.shopDays(of: vendor.id, from: 0, to: 1_000_000)
                let owed = days.reduce(0) { $0 + $1.balanceChange }
                let balance = try #require(try await store.shopBalances().first { $0.vendorID == vendor.id })
                #expect(balance.balanceDZD == owed, "step \(step)")
                #expect(
                    balance.oldestUnremittedDay
                        == ShopBalance.oldestUnremittedDay(balance: owed, days: days.map { ($0.day, $0.salesDZD - $0.commissionDZD) }),
                    "step \(step): owes \(owed)"
                )
                for (from, to) in [(first + 150, first + 250), (first - 5, first + 10), (first + 290, first + 400)] {
                    var expected: [[Int64]] = []
                    let before = days.filter { $0.day < from }
                    var running = before.reduce(0) { $0 + $1.balanceChange }
                    if !before.isEmpty, !days.contains(where: { $0.day == from }) { expected.append([from, running]) }
                    for day in days where (from...to).contains(day.day) {
                        running += day.balanceChange
                        expected.append([day.day, running])
                    }
                    let history =
                        try await store.shopBalanceHistory(from: from, to: to, owingMost: 9)[vendor.id]?.map { [$0.day, $0.balanceDZD] } ?? []
                    #expect(history == expected, "step \(step), \(from - first)...\(to - first)")
                }
            }
        }
    }

    /// The console draws the shops owing most at the end of its range: the history is theirs, chosen by what they
    /// owed at the end of the range's last day (not today), their days folded or not, and each plot ends at that
    /// balance.
    @Test(arguments: StoreKind.available)
    func theHistoryIsOfTheShopsOwingMostAtTheRangesEnd(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let desk = try SaleDesk(store: store)
            let member = try await store.createMember(Sample.draft(), now: 1_000).member
            var vendors: [Vendor] = []
            for index in 0..<12 {
                vendors.append(try await store.createVendor(name: "Shop \(index)", category: "boucherie", neighbourhood: "usto", now: 1_000))
            }
            let first = AlgiersCalendar.dayNumber(Sample.january31)
            // Shop n makes n + 1 sales, five days apart; after the range's end the first three make twenty each.
            for (index, vendor) in vendors.enumerated() {
                for sale in 0...index { _ = try await desk.sell(member, vendor: vendor, months: 1, now: Sample.january31 + Int64(sale) * 5 * 86_400) }
                if index == 6 { _ = try await store.foldConsoleSummaries() }
            }
            let end = first + 61
            for vendor in vendors.prefix(3) {
                for _ in 0..<20 { _ = try await desk.sell(member, vendor: vendor, months: 1, now: Sample.january31 + 62 * 86_400) }
            }
            for fold in [false, true] {
                if fold { _ = try await store.foldConsoleSummaries() }
                let history = try await store.shopBalanceHistory(from: first + 20, to: end, owingMost: 9)
                #expect(Set(history.keys) == Set(vendors.suffix(9).map(\.id)), "folded: \(fold)")
                for vendor in vendors.suffix(9) {
                    let owed = try await store.shopDays(of: vendor.id, from: 0, to: end).reduce(0) { $0 + $1.balanceChange }
                    #expect(history[vendor.id]?.last?.balanceDZD == owed, "folded: \(fold), \(vendor.name)")
                }
            }
        }
    }

    @Test(arguments: StoreKind.available)
    func aCommissionCannotStartOnADayWhoseSalesAreRecorded(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (vendor, _) = try await Sample.vendorAndMember(in: store)
            let service = Self.service(store, at: Sample.january31)
            let today = AlgiersCalendar.dayText(AlgiersCalendar.dayNumber(Sample.january31))
            let error = await #expect(throws: MembershipError.self) {
                try await service.setCommission(CommissionRequest(from: today, basis_points: 500), vendorID: vendor.id, by: Self.admin)
            }
            #expect(error?.fields["from"] != nil)
            let both = await #expect(throws: MembershipError.self) {
                try await service.setCommission(
                    CommissionRequest(from: "2099-01-01", basis_points: 500, per_month_dzd: 10),
                    vendorID: vendor.id,
                    by: Self.admin
                )
            }
            #expect(both?.fields["per_month_dzd"] != nil)
            #expect(try await store.commissions(of: vendor.id).isEmpty)
        }
    }

    @Test(arguments: StoreKind.available)
    func aRemittanceIsRecordedOncePerKeyWithItsAuditEntry(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (vendor, member) = try await Sample.vendorAndMember(in: store)
            try await SaleDesk(store: store).sell(member, vendor: vendor, months: 3, now: Sample.january31)
            let service = Self.service(store, at: Sample.january31 + 60)
            let first = try await service.recordRemittance(Self.remittance(600), vendorID: vendor.id, keyScope: "admin-1", key: "k1", by: Self.admin)
            let again = try await service.recordRemittance(Self.remittance(600), vendorID: vendor.id, keyScope: "admin-1", key: "k1", by: Self.admin)
            #expect(!first.replayed && again.replayed && again.entry == first.entry)
            #expect(first.entry.amountDZD == -600 && first.entry.method == .cash && first.entry.receivedBy == "Karim")
            #expect(try await store.shopBalance(of: vendor.id, before: 1_000_000) == 300)
            let reused = await #expect(throws: MembershipError.self) {
                try await service.recordRemittance(Self.remittance(100), vendorID: vendor.id, keyScope: "admin-1", key: "k1", by: Self.admin)
            }
            #expect(reused?.code == .idempotencyKeyReused)
            let audit = try await store.audit(after: 0, limit: 10).filter { $0.action == "account.remittance" }
            #expect(audit.count == 1)
            #expect(audit.first?.detail.hasSuffix("(entry \(first.entry.seq))") == true)
            #expect(audit.first?.target == vendor.id.lowercasedText && audit.first?.address == "192.0.2.7")
        }
    }

    @Test(arguments: StoreKind.available)
    func aRemittancePastWhatTheShopOwesIsRefusedUnlessOverridden(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (vendor, member) = try await Sample.vendorAndMember(in: store)
            try await SaleDesk(store: store).sell(member, vendor: vendor, months: 1, now: Sample.january31)
            let service = Self.service(store, at: Sample.january31 + 60)
            let over = await #expect(throws: MembershipError.self) {
                try await service.recordRemittance(Self.remittance(301), vendorID: vendor.id, keyScope: "a", key: "k1", by: Self.admin)
            }
            #expect(over?.fields["amount_dzd"]?.contains("300 DZD") == true)
            let overridden = try await service.recordRemittance(
                Self.remittance(301, override: true),
                vendorID: vendor.id,
                keyScope: "a",
                key: "k2",
                by: Self.admin
            )
            #expect(overridden.entry.amountDZD == -301)
            #expect(try await store.shopBalance(of: vendor.id, before: 1_000_000) == -1)
            let unknown = await #expect(throws: MembershipError.self) {
                try await service.recordRemittance(Self.remittance(1), vendorID: UUID(), keyScope: "a", key: "k3", by: Self.admin)
            }
            #expect(unknown?.code == .notFound)
            for (body, field) in [
                (RemittanceRequest(amount_dzd: -5, method: .ccp, received_by: "K"), "amount_dzd"),
                (RemittanceRequest(amount_dzd: 5, currency: "EUR", method: .ccp, received_by: "K"), "currency"),
                (RemittanceRequest(amount_dzd: 5, received_on: "2099-01-01", method: .ccp, received_by: "K"), "received_on"),
                (RemittanceRequest(amount_dzd: 5, received_on: "2026-02-30", method: .ccp, received_by: "K"), "received_on"),
                (RemittanceRequest(amount_dzd: 5, method: .ccp, received_by: "  "), "received_by"),
                (RemittanceRequest(amount_dzd: 5, method: .ccp, reference: "a\u{202E}b", received_by: "K"), "reference"),
            ] {
                let error = await #expect(throws: MembershipError.self) {
                    try await service.recordRemittance(body, vendorID: vendor.id, keyScope: "a", key: UUID().uuidString, by: Self.admin)
                }
                #expect(error?.fields[field] != nil, "\(body) names \(field)")
            }
            #expect(try await store.shopEntries(of: vendor.id, after: 0, limit: 10).count == 2)
        }
    }

    @Test(arguments: StoreKind.available)
    func aRemittanceOrAdjustmentIsReversedOnceAndASaleNever(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (vendor, member) = try await Sample.vendorAndMember(in: store)
            try await SaleDesk(store: store).sell(member, vendor: vendor, months: 2, now: Sample.january31)
            let service = Self.service(store, at: Sample.january31 + 60)
            let remitted = try await service.recordRemittance(Self.remittance(600), vendorID: vendor.id, keyScope: "a", key: "r", by: Self.admin)
            let adjusted = try await service.recordAdjustment(
                AdjustmentRequest(amount_dzd: -50, reason: "till short"),
                vendorID: vendor.id,
                keyScope: "a",
                key: "j",
                by: Self.admin
            )
            #expect(try await store.shopBalance(of: vendor.id, before: 1_000_000) == -50)
            let reversal = try await service.reverse(
                entry: remitted.entry.seq,
                ReversalRequest(reason: "counted twice"),
                vendorID: vendor.id,
                keyScope: "a",
                key: "v",
                by: Self.admin
            )
            #expect(reversal.entry.kind == .reversal && reversal.entry.reverses == remitted.entry.seq && reversal.entry.amountDZD == 600)
            #expect(try await store.shopBalance(of: vendor.id, before: 1_000_000) == 550)
            let twice = await #expect(throws: MembershipError.self) {
                try await service.reverse(
                    entry: remitted.entry.seq,
                    ReversalRequest(reason: "again"),
                    vendorID: vendor.id,
                    keyScope: "a",
                    key: "v2",
                    by: Self.admin
                )
            }
            #expect(twice?.code == .conflict)
            let sale = try #require(try await store.shopEntries(of: vendor.id, after: 0, limit: 1).first)
            let ofSale = await #expect(throws: MembershipError.self) {
                try await service.reverse(
                    entry: sale.seq,
                    ReversalRequest(reason: "no"),
                    vendorID: vendor.id,
                    keyScope: "a",
                    key: "v3",
                    by: Self.admin
                )
            }
            #expect(ofSale?.fields["entry"] != nil)
            let otherShop = try await store.createVendor(name: "B", category: "boucherie", neighbourhood: "usto", now: 1_000)
            let elsewhere = await #expect(throws: MembershipError.self) {
                try await service.reverse(
                    entry: adjusted.entry.seq,
                    ReversalRequest(reason: "no"),
                    vendorID: otherShop.id,
                    keyScope: "a",
                    key: "v4",
                    by: Self.admin
                )
            }
            #expect(elsewhere?.code == .notFound)
        }
    }

    @Test(arguments: StoreKind.available)
    func twoRemittancesAtOnceNeverTakeMoreThanTheShopOwes(_ kind: StoreKind) async throws {
        try await kind.withInstances(2) { stores in
            let (vendor, member) = try await Sample.vendorAndMember(in: stores[0])
            try await SaleDesk(store: stores[0]).sell(member, vendor: vendor, months: 3, now: Sample.january31)
            for round in 0..<8 {
                let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for index in 0..<2 {
                        group.addTask {
                            do {
                                _ = try await Self.service(stores[index], at: Sample.january31 + 60).recordRemittance(
                                    Self.remittance(round == 0 ? 600 : 1),
                                    vendorID: vendor.id,
                                    keyScope: "a",
                                    key: "round-\(round)-\(index)",
                                    by: Self.admin
                                )
                                return true
                            } catch let error as MembershipError where error.code == .invalidFields {
                                return false
                            }
                        }
                    }
                    return try await group.reduce(into: [Bool]()) { $0.append($1) }
                }
                // 900 owed: one of two 600s goes through; then 300 owed by ones.
                if round == 0 { #expect(outcomes.filter { $0 }.count == 1) }
            }
            #expect(try await stores[1].shopBalance(of: vendor.id, before: 1_000_000) == 300 - 14)
        }
    }

    @Test(arguments: StoreKind.available)
    func oneKeySentTwiceAtOnceRecordsOneRemittance(_ kind: StoreKind) async throws {
        try await kind.withInstances(2) { stores in
            let (vendor, member) = try await Sample.vendorAndMember(in: stores[0])
            try await SaleDesk(store: stores[0]).sell(member, vendor: vendor, months: 3, now: Sample.january31)
            for round in 0..<6 {
                let seqs = try await withThrowingTaskGroup(of: Int64.self) { group in
                    for index in 0..<2 {
                        group.addTask {
                            try await Self.service(stores[index], at: Sample.january31 + 60).recordRemittance(
                                Self.remittance(10),
                                vendorID: vendor.id,
                                keyScope: "a",
                                key: "same-\(round)",
                                by: Self.admin
                            ).entry.seq
                        }
                    }
                    return try await group.reduce(into: Set<Int64>()) { $0.insert($1) }
                }
                #expect(seqs.count == 1)
            }
            #expect(try await stores[0].shopEntries(of: vendor.id, after: 0, limit: 100).count == 7)
        }
    }

    @Test(arguments: StoreKind.available)
    func migration026BuildsTheAccountsOfPastSalesOnce(_ kind: StoreKind) async throws {
        try await kind.withStore { store in
            var ledger = try await RandomLedger(store: store, shops: 2, members: 6)
            for step in 0..<30 {
                let member = ledger.anyMember()
                if step % 4 == 3 {
                    try await ledger.cancelAnyPeriod(of: member, now: Sample.january31 + Int64(step) * 3_600)
                } else {
                    try await ledger.sell(member, now: Sample.january31 + Int64(step) * 3_600)
                }
            }
            let expected = try await store.shopDaysFromLedger()
            // The ledger as it was before migration 026: its tables gone, the migration not recorded.
            try await store.database.write { db in
                for table in [
                    "shop_balance_limit", "shop_accounts", "shop_commissions", "shop_day_changes", "shop_stretches", "shop_days", "shop_entries",
                ] {
                    try await db.execute("DROP TABLE \(table)")
                }
                try await db.execute("DELETE FROM schema_migrations WHERE name = '026_shop_accounts'")
            }
            try await store.migrate(now: Sample.january31)
            #expect(try await Self.accountDays(store, ledger.vendors) == expected)
            let owed = expected.mapValues { $0.reduce(0) { $0 + $1.balanceChange } }
            #expect(Dictionary(uniqueKeysWithValues: try await store.shopBalances().map { ($0.vendorID, $0.balanceDZD) }) == owed)
            let entries = try await store.database.read { db in try await db.query("SELECT COUNT(*) AS n FROM shop_entries", []) }
            // Its statements that write rows, run again, change nothing.
            let statements = Migrations.all(store.database.dialect).first { $0.name == "026_shop_accounts" }!.statements
            try await store.database.write { db in
                for statement in statements where !statement.hasPrefix("CREATE") { try await db.execute(statement) }
            }
            #expect(try await Self.accountDays(store, ledger.vendors) == expected)
            let after = try await store.database.read { db in try await db.query("SELECT COUNT(*) AS n FROM shop_entries", []) }
            #expect(try after[0].int("n") == entries[0].int("n"))
        }
    }
}
