import ConsoleAssets
import ConsoleCharts
import Foundation
import Membership
import PeezBasics
import ReportPDF
import Testing

@testable import Console

/// The daily report's PDF as a document someone prints: 40 shops, a million members' figures, long names in three
/// scripts, drawn by librsvg and cairo, each page rendered by pdftoppm and measured.
@Suite("Daily report pages")
struct DailyReportPagesTests {
    static let texts = try! ConsoleTexts(json: ConsoleAssets.consoleTexts)

    /// A report of 40 shops (long names, Latin and Arabic), 30 shared cards, 45 counters, 40 audit entries, no
    /// reminder that day.
    static func bigReport(_ language: ChartLanguage) throws -> DailyReport {
        var shops: [SalesPanelBody.Shop] = []
        for index in 0..<40 {
            let name: String =
                index.isMultiple(of: 3)
                ? "مخبزة وحلويات الحي الجديد رقم \(index) بجانب المسجد الكبير" : "Boucherie Centrale du Plateau Saint-Michel n° \(index)"
            let months = Int64(2_000 + index * 53)
            shops.append(
                SalesPanelBody.Shop(
                    vendor_id: UUID().uuidString.lowercased(),
                    name: name,
                    sales: Int64(1_000 + index * 37),
                    months: months,
                    amount_dzd: months * 300,
                    cancelled: Int64(index % 4)
                )
            )
        }
        var total = SalesPanelBody.Figures(sales: 0, months: 0, amount_dzd: 0, cancelled: 0)
        for shop in shops {
            total.sales += shop.sales
            total.months += shop.months
            total.amount_dzd += shop.amount_dzd
            total.cancelled += shop.cancelled
        }
        let chart = StackedBarChart(
            title: "t",
            days: ["2026-11-25"],
            series: shops.map { .init(name: $0.name, values: [$0.sales]) },
            language: language,
            emptyText: "",
            othersName: "Others"
        ).svg()
        func sighting(_ shop: Int) -> AnomaliesPanelBody.Sighting {
            .init(vendor_id: shops[shop].vendor_id!, vendor_name: shops[shop].name, counter_id: UUID().uuidString, scanned_at: 1_795_000_000)
        }
        let device = { (index: Int) in
            CountersPanelBody.Device(
                credential_id: UUID().uuidString.lowercased(),
                label: "till \(index) (Karim's phone, the one by the door)",
                vendor_id: shops[index % 40].vendor_id!,
                vendor_name: shops[index % 40].name,
                created_at: 1,
                last_used_at: nil,
                last_sync_at: 1_795_000_000,
                synced_since: false,
                trust_age_seconds: 60,
                revoked_at: nil,
                expires_at: nil
            )
        }
        return DailyReport(
            day: AlgiersCalendar.dayNumber(1_795_000_000),
            language: language,
            madeAt: 1_795_100_000,
            sales: SalesPanelBody(from: "2026-11-18", to: "2026-11-18", total: total, shops: shops, chart: chart),
            renewals: RenewalsPanelBody(
                from: "2026-11-18",
                to: "2026-11-18",
                due: 33_333,
                renewed: 22_222,
                rate: 0.6667,
                ahead_from: "2026-11-18",
                ending_7: 233_333,
                ending_30: 1_000_000,
                chart: chart
            ),
            subscriptions: SubscriptionsPanelBody(
                from: "2026-11-18",
                to: "2026-11-18",
                grace_days: 7,
                reminder_window_days: 7,
                revenue: .init(
                    start_dzd: 298_765_400,
                    start_members: 995_885,
                    end_dzd: 300_000_000,
                    end_members: 1_000_000,
                    new: .init(members: 4_115, dzd: 1_234_500),
                    renewed: .init(members: 22_222, dzd: 6_666_600),
                    returning: .init(members: 1_000, dzd: 300_000),
                    ended: .init(members: 23_222, dzd: 6_966_600),
                    lapsed: .init(members: 0, dzd: 0),
                    in_grace: .init(members: 1_000, dzd: 300_000)
                ),
                churn: .init(
                    through: nil,
                    due: .init(members: 0, dzd: 0),
                    renewed: .init(members: 0, dzd: 0),
                    lapsed: .init(members: 0, dzd: 0),
                    rate: nil,
                    revenue_rate: nil
                ),
                cohorts: [],
                mix: (1...3).map {
                    .init(months: $0, sales: 9_000, amount_dzd: 9_000 * 300 * $0, new: 1_000, renewed: 7_000, returning: 1_000, share: 1.0 / 3)
                },
                reminders: ["7d", "3d", "1d", "ended"].map {
                    .init(channel: "push", threshold: $0, delivered: 33_333, renewed: 11_111, rate: 1.0 / 3)
                },
                chart: chart
            ),
            anomalies: (0..<30).map { index -> AnomaliesPanelBody.Card in
                AnomaliesPanelBody.Card(
                    token_id: "t\(index)",
                    membership_id: "PEEZ-20261118-\(100_000 + index)",
                    member_uuid: nil,
                    member_name: "عبد الرحمن بن عبد الله الجزائري \(index)",
                    seconds_apart: 240,
                    cards_revoked: false,
                    earlier: sighting(index),
                    later: sighting(index + 1)
                )
            },
            reminders: RemindersPanelBody(from: "2026-11-18", to: "2026-11-18", by_outcome: [], outbox: [], chart: chart),
            wallet: WalletPanelBody(
                from: "2026-11-18",
                to: "2026-11-18",
                apple_passes: 190_000,
                apple_devices: 190_000,
                google_objects: 120_000,
                outbox_waiting: 0,
                pushes: [],
                chart: chart
            ),
            payments: PaymentsPanelBody(
                from: "2026-11-18",
                to: "2026-11-18",
                by_status: [.init(status: "paid", count: 1_234, dzd: 555_300), .init(status: "failed", count: 56, dzd: 16_800)],
                paid: 1_234,
                paid_dzd: 555_300,
                unsettled: 12,
                attention: [],
                chart: chart
            ),
            counters: CountersPanelBody(now: 1_795_000_000, live: false, devices: (0..<45).map(device)),
            audit: (0..<40).map { index -> ConsoleAuditBody.Entry in
                ConsoleAuditBody.Entry(
                    seq: Int64(index),
                    at: 1_795_000_000,
                    actor: "console (Amina Benali, opérations)",
                    address: "2001:db8::1",
                    action: "credential.revoke",
                    target: UUID().uuidString,
                    detail: "vendor \"till \(index)\", and 2 credential(s) that replaced it, 1 unused enrolment code(s) it made withdrawn",
                    values: [
                        AuditValue("role", "vendor"), AuditValue("label", "till \(index) (Karim's phone, the one by the door)"),
                        AuditValue("successors_revoked", "2"), AuditValue("codes_withdrawn", "1"),
                    ]
                )
            }
        )
    }

    struct NotAPage: Error {}

    /// A PGM page from pdftoppm: its width, height and grey levels.
    struct GreyPage {
        var width: Int
        var height: Int
        var pixels: [UInt8]

        init(_ data: Data) throws {
            var fields: [String] = []
            var index = data.startIndex
            while fields.count < 4 {
                while index < data.endIndex, data[index] == 0x20 || data[index] == 0x0A { index += 1 }
                var field = ""
                while index < data.endIndex, data[index] != 0x20, data[index] != 0x0A {
                    field.append(Character(UnicodeScalar(data[index])))
                    index += 1
                }
                fields.append(field)
            }
            index += 1
            guard fields[0] == "P5", let width = Int(fields[1]), let height = Int(fields[2]) else { throw NotAPage() }
            self.width = width
            self.height = height
            pixels = Array(data[index..<(index + width * height)])
        }

        /// The box of every pixel darker than light grey: (left, top, right, bottom), or nil for a blank page.
        var ink: (left: Int, top: Int, right: Int, bottom: Int)? {
            var box: (Int, Int, Int, Int)?
            for y in 0..<height {
                for x in 0..<width where pixels[y * width + x] < 200 {
                    box = box.map { (min($0.0, x), min($0.1, y), max($0.2, x), max($0.3, y)) } ?? (x, y, x, y)
                }
            }
            return box
        }
    }

    @Test(arguments: [ChartLanguage.en, .fr, .ar])
    func everyPageKeepsItsInkWithinTheMarginsAndNoSectionTitleEndsAPage(language: ChartLanguage) throws {
        let report = try Self.bigReport(language)
        let pages = report.pages(texts: Self.texts)
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("peez-report-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let pdf = work.appendingPathComponent("report.pdf").path
        try ReportPDF.write(pages, to: pdf)
        // PEEZ_REPORT_OUT=folder keeps each language's PDF there, to look at.
        if let folder = ProcessInfo.processInfo.environment["PEEZ_REPORT_OUT"] {
            let kept = URL(fileURLWithPath: folder).appendingPathComponent("daily-report-\(language.rawValue).pdf")
            try? FileManager.default.removeItem(at: kept)
            try FileManager.default.copyItem(atPath: pdf, toPath: kept.path)
        }
        let render = Process()
        render.executableURL = URL(fileURLWithPath: "/usr/bin/pdftoppm")
        render.arguments = ["-r", "72", "-gray", pdf, work.appendingPathComponent("page").path]
        try render.run()
        render.waitUntilExit()
        #expect(render.terminationStatus == 0)
        let rendered = try FileManager.default.contentsOfDirectory(atPath: work.path).filter { $0.hasSuffix(".pgm") }.sorted()
        #expect(rendered.count == pages.count && pages.count > 3, "\(rendered.count) pages rendered of \(pages.count)")
        for name in rendered {
            let page = try GreyPage(Data(contentsOf: work.appendingPathComponent(name)))
            let ink = try #require(page.ink, "\(name) is blank")
            // 1 pt is 1 pixel at 72 dpi; the margins are 40 pt (a pixel of anti-aliasing allowed).
            #expect(ink.left >= 39 && ink.right <= page.width - 39, "\(language) \(name): ink from \(ink.left) to \(ink.right) of \(page.width)")
            #expect(ink.top >= 20 && ink.bottom <= page.height - 15, "\(language) \(name): ink from \(ink.top) to \(ink.bottom) of \(page.height)")
        }
        // A section's title is never the last line of a page: something of its own follows it there.
        for (number, page) in pages.enumerated() {
            let texts = page.matches(of: /<text [^>]*font-size="([0-9.]+)"[^>]*>([^<]*)<\/text>/).map { (size: String($0.1), text: String($0.2)) }
            let body = texts.dropLast()  // the page number
            #expect(body.last?.size != "14", "\(language): page \(number + 1) ends with the title \(body.last?.text ?? "")")
        }
    }

    @Test func everyShopIsListedAndTheTotalIsTheirSumAndAnEmptySectionSaysSo() throws {
        let report = try Self.bigReport(.en)
        let pages = report.pages(texts: Self.texts).joined()
        for shop in report.sales.shops {
            #expect(pages.contains(">\(SVGText.escaped(String(shop.name.prefix(20))))"), "\(shop.name)")
        }
        let sum = report.sales.shops.reduce(0) { $0 + $1.sales }
        #expect(sum == report.sales.total.sales && pages.contains(">\(ChartLanguage.en.integer(sum))</text>"))
        #expect(pages.contains(">\(Self.texts.text("report.none", .en))</text>"), "the reminders of a day without any say so")
        #expect(pages.contains(Self.texts.text("report.continued", .en)), "a table continued on the next page says so")
    }
}
