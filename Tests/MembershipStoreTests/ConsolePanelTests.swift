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
