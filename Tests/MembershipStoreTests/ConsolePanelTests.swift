import CardServices
import Console
import ConsoleAssets
import ConsoleCharts
import Foundation
import Membership
import MembershipSQL
import PeezBasics
import Testing

/// The console's panels over a real ledger: what they count is what was sold, whatever the number of shops.
@Suite("Console panels")
struct ConsolePanelTests {
    @Test(arguments: StoreKind.available)
    func theSalesPanelCountsEveryShopAndDrawsTheNineBiggestAndTheOthers(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let desk = try SaleDesk(store: store)
            var vendors: [Vendor] = []
            for index in 0..<12 {
                vendors.append(try await store.createVendor(name: "Shop \(index)", category: "epicerie", neighbourhood: "usto", now: 1))
            }
            // Shop k sells k + 1 times: the three smallest are the others.
            var member = 0
            for (index, vendor) in vendors.enumerated() {
                for _ in 0...index {
                    member += 1
                    let buyer = try await store.createMember(Sample.draft(member), now: 1_000).member
                    try await desk.sell(buyer, vendor: vendor, months: 1, now: Sample.january31 + Int64(member))
                }
            }
            let console = ConsoleService(store: store, texts: try ConsoleTexts(json: ConsoleAssets.consoleTexts), clock: desk.clock.wallClock)
            desk.clock.set(Sample.january31 + 3_600)
            let day = AlgiersCalendar.dayNumber(Sample.january31)
            let panel = try await console.sales(ConsoleDays(first: day - 1, last: day), .en)
            #expect(panel.total.sales == 78 && panel.total.amount_dzd == 78 * 300)
            #expect(panel.shops.count == 12 && panel.shops.first?.name == "Shop 11" && panel.shops.first?.sales == 12)
            #expect(panel.chart.contains(">Shop 3</text>") && !panel.chart.contains(">Shop 2</text>") && panel.chart.contains(">Others</text>"))
            // The others' bar: shops 0, 1 and 2 sold 1 + 2 + 3.
            #expect(panel.chart.contains("Others: 6</title>"))
        }
    }
}

/// A daily report over three days of a ledger holds the middle day only, in its CSV and in each language's pages.
@Suite("Daily report")
struct DailyReportTests {
    @Test(arguments: StoreKind.available)
    func everySectionOfTheReportIsBoundedToItsDayInTheCSVAndThePages(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let desk = try SaleDesk(store: store)
            let shops = [
                try await store.createVendor(name: "Boucherie Centrale", category: "boucherie", neighbourhood: "usto", now: 1),
                try await store.createVendor(name: "Pharmacie Es-Salam", category: "pharmacie", neighbourhood: "usto", now: 1),
            ]
            let credentials = CredentialService(store: store, now: desk.clock.wallClock)
            let admin = AuditActor(label: "ops", credentialID: nil, address: "192.0.2.1")
            let till = try await credentials.create(role: .vendor, vendorID: shops[0].id, label: "till", by: admin).credential
            let day = AlgiersCalendar.dayNumber(Sample.january31) + 1
            var member = 0
            // Day offset d: d + 2 sales at the butcher's, one card seen at both shops 60·(d + 2) s apart, one
            // credential made (audited), the till synced.
            for offset in -1...1 {
                let noon = (day + Int64(offset)) * 86_400 - AlgiersCalendar.utcOffset + 43_200
                desk.clock.set(noon)
                for _ in 0..<(offset + 2) {
                    member += 1
                    let buyer = try await store.createMember(Sample.draft(member), now: noon)
                    try await desk.sell(buyer.member, vendor: shops[0], months: 1, now: noon)
                }
                let token = "eeeeeeeeeeeeee0\(offset + 2)"
                for (index, shop) in shops.enumerated() {
                    _ = try await store.recordScans(
                        [
                            CounterScan(
                                counterID: UUID(),
                                seq: 1,
                                scannedAt: noon + Int64(index * 60 * (offset + 2)),
                                verdict: "valid",
                                membershipID: "PEEZ-20260101-00001",
                                tokenID: token,
                                offline: false,
                                trustAge: 60
                            )
                        ],
                        vendorID: shop.id,
                        now: noon
                    )
                }
                _ = try await credentials.create(role: .backend, vendorID: nil, label: "made on day \(offset)", by: admin)
                try await store.noteCounterSync(credentialID: till.id, at: noon)
            }
            desk.clock.set((day + 3) * 86_400)
            let texts = try ConsoleTexts(json: ConsoleAssets.consoleTexts)
            let console = ConsoleService(store: store, texts: texts, clock: desk.clock.wallClock)
            let report = try await DailyReport.make(console, day: day, language: .en)
            let csv = report.csv().split(separator: "\r\n").map(String.init)
            func section(_ name: String) -> [String] { csv.filter { $0.hasPrefix(name + ",") } }
            let date = AlgiersCalendar.dayText(day)
            #expect(section("sales") == ["sales,\(date),\(shops[0].id.lowercasedText),Boucherie Centrale,2,2,600,0"])
            #expect(section("cards_at_two_shops").count == 1 && section("cards_at_two_shops")[0].contains(",120,"), "the day's card only")
            #expect(section("audit").count == 1 && section("audit")[0].contains("made on day 0"), "\(section("audit"))")
            #expect(section("renewals").first?.contains(",\(date),") == true, "ends counted from the day")
            // The day's revenue: the day before's member, the day's two new ones; the next day's sales not yet.
            #expect(section("revenue") == ["revenue,\(date),1,300,2,600,0,0,0,0,0,0,0,0,0,0,3,900"])
            #expect(section("lengths_sold") == ["lengths_sold,\(date),1,2,600,2,0,0"])
            #expect(section("churn") == ["churn,\(date),7,,0,0,0,,"], "no end has passed its grace window")
            #expect(
                section("cohorts") == [
                    "cohorts,2026-01,1,0,1,1.0000", "cohorts,2026-01,1,1,1,1.0000", "cohorts,2026-02,2,0,2,1.0000",
                ]
            )
            let dayEnd = AlgiersCalendar.iso8601((day + 1) * 86_400 - AlgiersCalendar.utcOffset - 1)
            #expect(
                section("counters") == ["counters,\(dayEnd),Boucherie Centrale,till,\(till.id.lowercasedText),,,yes,active"],
                "synced after the day: said, not shown as the day's"
            )
            #expect(section("wallet").first?.hasPrefix("wallet,\(AlgiersCalendar.iso8601((day + 3) * 86_400)),") == true, "labelled with now")
            for language in [ChartLanguage.en, .fr, .ar] {
                // The pages' words in order, lines joined (a long line is wrapped).
                let pages = try await DailyReport.make(console, day: day, language: language).pages(texts: texts).joined()
                    .matches(of: /<text [^>]*>([^<]*)<\/text>/).map { String($0.1) }.joined(separator: " ")
                #expect(pages.contains("made on day 0") && !pages.contains("made on day -1") && !pages.contains("made on day 1"), "\(language)")
                #expect(pages.contains(texts.text("report.synced_since", language)), "\(language)")
                #expect(pages.contains(texts.text("action.credential.create", language)), "\(language)")
                #expect(
                    pages.contains(texts.text("panel.subscriptions", language)) && pages.contains(texts.text("subscriptions.start", language)),
                    "\(language)"
                )
            }
        }
    }
}
