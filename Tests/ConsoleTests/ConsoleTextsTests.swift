import ConsoleAssets
import ConsoleCharts
import Foundation
import Membership
import Testing

@testable import Console

/// The console's texts and files: the three languages say the same things, every text the server draws into
/// a chart or a report exists, and the files built in are the folder's.
@Suite("Console texts and files")
struct ConsoleTextsTests {
    static let texts = try! ConsoleTexts(json: ConsoleAssets.consoleTexts)

    @Test func everyLanguageHasEveryText() {
        let keys = Self.texts.keysByLanguage
        #expect(Set(keys.keys) == ["en", "fr", "ar"])
        #expect(keys["fr"] == keys["en"] && keys["ar"] == keys["en"])
    }

    @Test func everyTextTheServerDrawsExists() {
        let english = Self.texts.keysByLanguage["en"]!
        let drawn =
            [
                "chart.sales", "chart.renewals", "chart.reminders", "chart.wallet", "chart.timeline", "chart.empty", "chart.others", "chart.in_app",
                "chart.ending", "chart.revenue", "chart.revenue_dzd", "chart.payments",
            ]
            + ["timeline.periods", "timeline.today"] + CoverageTimeline.Lane.allCases.map { "timeline.\($0)" }
            + ["joined", "sale", "cancellation", "cards_revoked", "device_key", "apple_pass", "google_pass", "scan"].map { "event.\($0)" }
            + ["valid", "expired", "no_paid_period", "presentation_required", "revoked", "invalid", "cannot_confirm"].map { "verdict.\($0)" }
            + ["delivered", "failed", "exhausted", "superseded", "retried"].map { "outcome.\($0)" }
            + ["channel.push", "channel.wallet", "platform.apple", "platform.google"]
            + ["sales", "renewals", "subscriptions", "anomalies", "reminders", "wallet", "counters"].map { "panel.\($0)" }
            + ["title", "sales", "renewals", "anomalies", "anomaly_line", "outbox", "wallet", "counter_line", "payments"].map { "report.\($0)" }
        let payments: [String] =
            PaymentStatus.allCases.map { "payment.\($0.rawValue)" } + ["heading", "status", "count", "dzd"].map { "payments.\($0)" }
        #expect(Set(drawn + payments).subtracting(english).isEmpty, "missing: \(Set(drawn + payments).subtracting(english).sorted())")
    }

    @Test func theFilesBuiltInAreTheFoldersFiles() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/ConsoleAssets/site")
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
        #expect(ConsoleAssets.fileNames == files)
    }

    @Test(arguments: [
        ("=HYPERLINK(\"x\")", "\"'=HYPERLINK(\"\"x\"\")\""), ("+213550000001", "+213550000001"), ("-12", "-12"),
        ("Boucherie, Centrale", "\"Boucherie, Centrale\""),
        ("@SUM(A1)", "'@SUM(A1)"), ("plain", "plain"),
    ])
    /// A number stays a number (a sign included); text a spreadsheet would run is prefixed.
    func aCSVFieldIsQuotedAndNeverAFormula(value: String, field: String) {
        #expect(DailyReport.field(value) == field)
    }
}
