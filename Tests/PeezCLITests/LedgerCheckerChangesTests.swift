import Foundation
import PeezAPI
import Soak
import Testing

/// The soak checker's rules for what came after the sales: a card showing a member's state a completed change
/// had overtaken, the revocation list leaving an old card valid or revoking a new one, a credential accepted
/// after its revocation or its rotation's grace, an enrolment code redeemed twice, a payment that does not end
/// as the gateway says, and the console's summaries apart from the ledger: each found in a history written by
/// hand, and nothing in the same history put right.
@Suite("Soak checker: changes, credentials, payments, console")
struct LedgerCheckerChangesTests {
    typealias Base = LedgerCheckerTests
    static let membershipID = "PEEZ-20260110-00001"

    static func change(_ kind: HistoryEntry.Kind, _ value: String, at time: Double, instance: Int = 0, outcome: Outcome = .ok) -> HistoryEntry {
        var change = HistoryEntry(client: "backend", kind: kind, invoked: time, completed: time + 1, outcome: outcome, member: Base.member)
        change.value = value
        change.instance = instance
        return change
    }

    static func fetch(
        at time: Double,
        instance: Int = 0,
        name: String = "Member 0",
        key: String = "none",
        issued: String = "2026-01-20T10:00:00+01:00"
    )
        -> HistoryEntry
    {
        var fetch = HistoryEntry(client: "app-0", kind: .cardFetch, invoked: time, completed: time + 0.01, outcome: .ok, member: Base.member)
        fetch.instance = instance
        fetch.tokenID = "0011223344556677"
        fetch.issuedAt = issued
        fetch.value = name
        fetch.deviceKey = key
        return fetch
    }

    /// The member as set up: named "Member 0", bound to no phone.
    static let created = change(.rename, "Member 0", at: -1)

    static func invariants(_ history: [HistoryEntry], final: FinalReads = FinalReads(), ledger: [SubscriptionBody]? = nil) throws -> [String] {
        let ledger = try ledger ?? Base.ledger([Base.first, Base.second])
        return LedgerChecker(history: Base.answeredSales + [created] + history, ledger: ledger, final: final).check().violations.map(\.invariant)
    }

    @Test func aCardShowingANameOrPhoneKeyAChangeHadOvertakenIsFound() throws {
        let rename = Self.change(.rename, "Amina", at: 1)
        let bind = Self.change(.deviceKey, "KEY1", at: 1)
        let stale = "a card shows the member as the last change left them"
        #expect(try Self.invariants([rename, Self.fetch(at: 2.5, name: "Amina")]).isEmpty)
        #expect(try Self.invariants([rename, Self.fetch(at: 1.5)]).isEmpty, "begun while the change ran")
        #expect(try Self.invariants([rename, Self.fetch(at: 2.5, instance: 1)]).isEmpty, "another instance, within the propagation bound")
        #expect(try Self.invariants([rename, Self.fetch(at: 2.5)]) == [stale])
        #expect(try Self.invariants([rename, Self.fetch(at: 4, instance: 1)]) == [stale])
        #expect(try Self.invariants([bind, Self.fetch(at: 2.5, key: "KEY1")]).isEmpty)
        #expect(try Self.invariants([bind, Self.fetch(at: 2.5)]) == [stale])
        let lost = Self.change(.deviceKey, "KEY2", at: 3, outcome: .unknown)
        #expect(try Self.invariants([bind, lost, Self.fetch(at: 6, key: "KEY2")]).isEmpty, "a change whose answer was lost may have been made")
        let refused = Self.change(.deviceKey, "KEY2", at: 3, outcome: .refused)
        #expect(try Self.invariants([bind, refused, Self.fetch(at: 6, key: "KEY2")]) == [stale])
    }

    @Test func theRevocationListLeavingAnOldCardValidOrRevokingANewOneIsFound() throws {
        let before = Self.fetch(at: 1, issued: "2026-01-20T10:00:00+01:00")
        let bind = Self.change(.deviceKey, "KEY1", at: 2)
        let after = Self.fetch(at: 30, key: "KEY1", issued: "2026-01-20T10:00:05+01:00")
        func final(revokingBefore time: String) -> FinalReads {
            FinalReads(
                revokedBefore: [Self.membershipID: Int64(ISO8601DateFormatter().date(from: time)!.timeIntervalSince1970)],
                membershipIDs: [Base.member: Self.membershipID]
            )
        }
        #expect(try Self.invariants([before, bind, after], final: final(revokingBefore: "2026-01-20T10:00:05+01:00")).isEmpty)
        #expect(
            try Self.invariants([before, bind, after], final: final(revokingBefore: "2026-01-20T10:00:00+01:00"))
                == ["a card answered before a revoking change is revoked"]
        )
        #expect(
            try Self.invariants([before, bind, after], final: final(revokingBefore: "2026-01-20T10:00:06+01:00"))
                == ["no card fetched after every revoking change is revoked"]
        )
    }

    static func sale(credential: String, sentAt time: Double, instance: Int) -> HistoryEntry {
        var sale = Base.sale(.ok, period: "p2", months: 2, key: "k2")
        sale.credential = credential
        sale.answeredAttemptInvoked = time
        sale.instance = instance
        return sale
    }

    static func credentialChange(_ kind: HistoryEntry.Kind, completed: Double, expiresAt: Double? = nil) -> HistoryEntry {
        var change = HistoryEntry(client: "team", kind: kind, invoked: completed - 0.1, completed: completed, outcome: .ok)
        change.credential = "c1"
        change.instance = 0
        change.expiresAt = expiresAt
        return change
    }

    @Test func aCredentialAcceptedAfterItsRevocationOrItsRotationsGraceIsFound() throws {
        let sales = [Base.sale(.ok, period: "p1", months: 1, key: "k1")]
        func invariants(_ history: [HistoryEntry]) -> [String] {
            LedgerChecker(history: sales + history, ledger: try! Base.ledger([Base.first, Base.second])).check().violations.map(\.invariant)
        }
        let revocation = Self.credentialChange(.credentialRevoke, completed: 4)
        let revoked = "no credential authorises a request begun after its revocation"
        #expect(invariants([revocation, Self.sale(credential: "c1", sentAt: 3.9, instance: 0)]).isEmpty)
        #expect(invariants([revocation, Self.sale(credential: "c1", sentAt: 4.5, instance: 1)]).isEmpty, "another instance, within the bound")
        #expect(invariants([revocation, Self.sale(credential: "c1", sentAt: 4.5, instance: 0)]) == [revoked])
        #expect(invariants([revocation, Self.sale(credential: "c1", sentAt: 9.5, instance: 1)]) == [revoked])

        let rotation = Self.credentialChange(.credentialRotate, completed: 2, expiresAt: 5)
        let ended = "no credential authorises a request begun after its rotation's grace"
        #expect(invariants([rotation, Self.sale(credential: "c1", sentAt: 5.5, instance: 1)]).isEmpty, "the end is written in whole seconds")
        #expect(invariants([rotation, Self.sale(credential: "c1", sentAt: 7, instance: 1)]) == [ended])
        var clockStep = HistoryEntry(client: "nemesis", kind: .fault, invoked: 1, completed: 1, outcome: .ok, detail: "clock stepped")
        clockStep.value = "3"
        #expect(invariants([clockStep, rotation, Self.sale(credential: "c1", sentAt: 7, instance: 1)]).isEmpty, "instances' clocks 3 s apart")

        func redemption(_ credential: String) -> HistoryEntry {
            var redemption = HistoryEntry(client: "shop-0-device-0", kind: .enrolment, invoked: 1, completed: 2, outcome: .ok)
            redemption.code = "CODE1234"
            redemption.credential = credential
            return redemption
        }
        let sold = Base.answeredSales[1]
        #expect(invariants([sold, redemption("c2")]).isEmpty)
        #expect(invariants([sold, redemption("c2"), redemption("c3")]) == ["an enrolment code enrols one device"])
    }

    static func payment(status: String, period: String?) throws -> PaymentBody {
        let body: [String: Any] = [
            "id": "pay1", "member_uuid": Base.member, "months": 1, "amount_dzd": 300, "status": status, "checkout_id": "co1", "livemode": false,
            "created_at": "2026-01-25T10:00:00+01:00", "updated_at": "2026-01-25T10:00:00+01:00", "period_id": period.map { $0 as Any } ?? NSNull(),
        ]
        return try JSONDecoder().decode(PaymentBody.self, from: JSONSerialization.data(withJSONObject: body))
    }

    @Test func aPaymentThatDoesNotEndAsTheGatewaySaysOrSellsOtherThanOnePeriodIsFound() throws {
        var checkout = HistoryEntry(client: "app-payments", kind: .checkout, invoked: 5, completed: 6, outcome: .ok, member: Base.member, months: 1)
        checkout.payment = "pay1"
        checkout.checkout = "co1"
        var inApp = Base.period(
            "p3",
            months: 1,
            bought: "2026-01-25T10:00:00+01:00",
            starts: "2026-04-10T10:00:00+01:00",
            ends: "2026-05-10T10:00:00+01:00"
        )
        inApp["vendor_id"] = NSNull()
        inApp["source"] = "in_app"
        let ledger = try Base.ledger([Base.first, Base.second, inApp], endsAt: "2026-05-10T10:00:00+01:00")
        func invariants(_ payment: PaymentBody, gateway: String, ledger: [SubscriptionBody]) throws -> [String] {
            try Self.invariants([checkout], final: FinalReads(payments: [payment], gateway: ["co1": gateway]), ledger: ledger)
        }
        #expect(try invariants(try Self.payment(status: "paid", period: "p3"), gateway: "paid", ledger: ledger).isEmpty)
        #expect(
            try invariants(try Self.payment(status: "pending", period: nil), gateway: "paid", ledger: ledger).contains(
                "a payment ends as the gateway says"
            )
        )
        #expect(
            try invariants(try Self.payment(status: "paid", period: "p3"), gateway: "paid", ledger: try Base.ledger([Base.first, Base.second]))
                == ["a paid checkout is one period in the app"]
        )
        #expect(
            try invariants(try Self.payment(status: "failed", period: "p3"), gateway: "failed", ledger: ledger).sorted()
                == ["an unpaid checkout sells nothing", "every period in the app is one paid payment", "no sale stored that no invocation explains"]
        )
    }

    @Test func aConsoleSummaryApartFromARebuildOfTheLedgerIsFound() throws {
        func panel(sales: Int64) -> FinalReads {
            let line = FinalReads.SalesLine(vendor_id: Base.shop, sales: sales, months: 3, amount_dzd: 900, cancelled: 0)
            return FinalReads(sales: FinalReads.SalesPanel(from: "2026-01-10", to: "2026-01-20", shops: [line]))
        }
        #expect(try Self.invariants([], final: panel(sales: 2)).isEmpty)
        #expect(try Self.invariants([], final: panel(sales: 3)) == ["the console's summaries equal a rebuild from the ledger"])
    }
}

/// The soak checker's rule for the shops' accounts: a balance apart from its entries, a sale missing from its
/// shop's account, a remittance recorded twice.
@Suite("Soak checker: shops' accounts")
struct LedgerCheckerAccountTests {
    typealias Base = LedgerCheckerTests

    static func entry(_ seq: Int64, _ kind: String, _ amount: Int64, on date: String, period: String? = nil) -> [String: Any] {
        var entry: [String: Any] = [
            "seq": seq, "vendor_id": Base.shop, "kind": kind, "recorded_at": date + "T10:00:00+01:00", "date": date, "amount_dzd": amount,
            "commission_dzd": 0, "balance_change_dzd": amount,
        ]
        if let period { entry["period_id"] = period }
        return entry
    }

    static func day(_ date: String, sales: Int64, dzd: Int64, remitted: Int64, closing: Int64) -> [String: Any] {
        let figures: [String: Any] = [
            "sales": sales, "sales_dzd": dzd, "cancellations": 0, "cancellations_dzd": 0, "gross_dzd": dzd, "commission_dzd": 0, "net_dzd": dzd,
            "remitted_dzd": remitted, "adjusted_dzd": 0,
        ]
        return ["date": date, "figures": figures, "closing_balance_dzd": closing]
    }

    /// The shop's account as read: `entries`, and a statement of `days` closing at `closing`.
    static func final(_ entries: [[String: Any]], days: [[String: Any]], closing: Int64) throws -> FinalReads {
        let zero: [String: Any] = [
            "sales": 0, "sales_dzd": 0, "cancellations": 0, "cancellations_dzd": 0, "gross_dzd": 0, "commission_dzd": 0, "net_dzd": 0,
            "remitted_dzd": 0, "adjusted_dzd": 0,
        ]
        let statement: [String: Any] = [
            "vendor_id": Base.shop, "vendor_name": "Shop 0", "from": "2026-01-10", "to": "2026-01-20", "currency": "DZD",
            "opening_balance_dzd": 0, "days": days, "entries": [], "totals": zero, "closing_balance_dzd": closing,
        ]
        let decoder = JSONDecoder()
        let account = FinalReads.ShopAccount(
            entries: try decoder.decode([ShopEntryBody].self, from: JSONSerialization.data(withJSONObject: entries)),
            statement: try decoder.decode(ShopStatementBody.self, from: JSONSerialization.data(withJSONObject: statement))
        )
        return FinalReads(accounts: [Base.shop: account])
    }

    static let remitted: HistoryEntry = {
        var remittance = HistoryEntry(client: "team-cash", kind: .remittance, invoked: 3, completed: 4, outcome: .ok, vendor: Base.shop)
        remittance.value = "200"
        remittance.detail = "3"
        return remittance
    }()

    static func invariants(_ history: [HistoryEntry], _ final: FinalReads) throws -> [String] {
        LedgerChecker(history: Base.answeredSales + history, ledger: try Base.ledger([Base.first, Base.second]), final: final)
            .check().violations.map(\.invariant)
    }

    @Test func aBalanceApartFromItsEntriesASaleMissingOrARemittanceRecordedTwiceIsFound() throws {
        let sales = [Self.entry(1, "sale", 300, on: "2026-01-10", period: "p1"), Self.entry(2, "sale", 600, on: "2026-01-20", period: "p2")]
        let remittance = Self.entry(3, "remittance", -200, on: "2026-01-20")
        let days = [
            Self.day("2026-01-10", sales: 1, dzd: 300, remitted: 0, closing: 300),
            Self.day("2026-01-20", sales: 1, dzd: 600, remitted: 200, closing: 700),
        ]
        #expect(try Self.invariants([Self.remitted], Self.final(sales + [remittance], days: days, closing: 700)).isEmpty)
        // A statement that lost the second sale's line: its balance is apart from its entries.
        let short = [days[0], Self.day("2026-01-20", sales: 0, dzd: 0, remitted: 200, closing: 100)]
        #expect(
            try Self.invariants([Self.remitted], Self.final(sales + [remittance], days: short, closing: 100))
                == ["every shop balance equals its entries", "every shop balance equals its entries"]
        )
        // The second sale never reached the account (nor its statement).
        #expect(
            try Self.invariants([Self.remitted], Self.final([sales[0], remittance], days: short, closing: 100))
                == ["every sale at a shop is in its account once", "every shop balance equals its entries"]
        )
        // One remittance answered, none lost, two recorded.
        let twice = sales + [remittance, Self.entry(4, "remittance", -200, on: "2026-01-20")]
        let doubled = [days[0], Self.day("2026-01-20", sales: 1, dzd: 600, remitted: 400, closing: 500)]
        #expect(
            try Self.invariants([Self.remitted], Self.final(twice, days: doubled, closing: 500))
                == ["a remittance answered is recorded once, one lost at most once"]
        )
        var lost = Self.remitted
        lost.outcome = .unknown
        lost.detail = nil
        #expect(try Self.invariants([Self.remitted, lost], Self.final(twice, days: doubled, closing: 500)).isEmpty, "the lost one landed")
    }
}

/// The soak checker's rules for the counters' scan reports and the renewal reminders' outbox.
@Suite("Soak checker: scans and reminders")
struct LedgerCheckerOutboxTests {
    typealias Base = LedgerCheckerTests

    static func report(_ outcome: Outcome, entries: [String], refused: [Int] = []) -> HistoryEntry {
        var report = HistoryEntry(client: "shop-0", kind: .scanReport, invoked: 1, completed: 2, outcome: outcome)
        report.value = "counter-1"
        report.entries = entries
        report.refusedEntries = refused
        return report
    }

    static func scan(_ seq: Int64, _ member: String) throws -> ReportedScanBody {
        let body: [String: Any] = [
            "vendor_id": Base.shop, "vendor_name": "Shop 0", "counter_id": "counter-1", "seq": seq, "scanned_at": "2026-01-20T10:00:00+01:00",
            "verdict": "valid", "membership_id": member, "offline": false, "trust_age_seconds": 60, "clock_wrong": false,
            "received_at": "2026-01-20T10:00:01+01:00",
        ]
        return try JSONDecoder().decode(ReportedScanBody.self, from: JSONSerialization.data(withJSONObject: body))
    }

    static func invariants(_ history: [HistoryEntry], _ final: FinalReads) throws -> [String] {
        LedgerChecker(history: Base.answeredSales + history, ledger: try Base.ledger([Base.first, Base.second]), final: final)
            .check().violations.map(\.invariant)
    }

    @Test func aReportedScanLostStoredTwiceOrStoredUnsentIsFound() throws {
        let sent = Self.report(.ok, entries: ["1 PEEZ-A", "2 PEEZ-B"])
        #expect(try Self.invariants([sent], FinalReads(scans: [try Self.scan(1, "PEEZ-A"), try Self.scan(2, "PEEZ-B")])).isEmpty)
        #expect(try Self.invariants([sent], FinalReads(scans: [try Self.scan(1, "PEEZ-A")])) == ["a scan reported is stored once, as reported"])
        #expect(
            try Self.invariants([Self.report(.ok, entries: ["1 PEEZ-A", "2 PEEZ-B"], refused: [2])], FinalReads(scans: [try Self.scan(1, "PEEZ-A")]))
                .isEmpty,
            "an entry refused for good is not stored"
        )
        let refused = Self.report(.refused, entries: ["1 PEEZ-A"])
        #expect(try Self.invariants([refused], FinalReads(scans: [try Self.scan(1, "PEEZ-A")])) == ["no scan stored that no report sent"])
    }

    static func run(at time: Int64, _ detail: String, outcome: Outcome = .ok) -> HistoryEntry {
        var run = HistoryEntry(client: "remind", kind: .remindRun, invoked: 1, completed: 2, outcome: outcome, detail: detail)
        run.value = String(time)
        return run
    }

    @Test func aReminderLostSentEarlyOrRepeatedWithoutAKillIsFound() throws {
        // The member's paid time ends 2026-04-10T10:00:00+01:00: 1775811600.
        let end: Int64 = 1_775_811_600
        let id = "rem_\(Base.member)_\(end)_1d_push"
        let last = Self.run(at: end - 43_200, "exit status 0")
        func reminders(_ received: [String], delivered: Int, duplicates: Int = 0) -> FinalReads {
            FinalReads(
                reminders: .init(
                    states: ["pending": 0, "unknown": 0, "delivered": delivered, "failed": 0, "superseded": 0, "exhausted": 0],
                    received: received,
                    duplicates: duplicates
                )
            )
        }
        #expect(try Self.invariants([last], reminders([id], delivered: 1)).isEmpty)
        #expect(try Self.invariants([last], reminders([id], delivered: 2)) == ["every reminder delivered was received"])
        #expect(try Self.invariants([last], reminders([], delivered: 0)) == ["every member due is reminded"])
        let early = "rem_\(Base.member)_\(end)_3d_push"
        #expect(try Self.invariants([last], reminders([id, early], delivered: 2)) == ["no reminder sent before it was due"])
        #expect(
            try Self.invariants([last], reminders([id], delivered: 1, duplicates: 1)) == [
                "a reminder is taken again only after a run was killed sending it"
            ]
        )
        #expect(
            try Self.invariants(
                [Self.run(at: end - 50_000, "kill -9 after 300 ms", outcome: .unknown), last],
                reminders([id], delivered: 1, duplicates: 1)
            ).isEmpty
        )
        var open = reminders([id], delivered: 1)
        open.reminders?.states["pending"] = 1
        #expect(try Self.invariants([last], open) == ["every reminder recorded is delivered"])
    }
}
