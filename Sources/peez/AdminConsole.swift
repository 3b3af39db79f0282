import ArgumentParser
import CardServices
import Console
import ConsoleAssets
import ConsoleCharts
import Foundation
import Membership
import PeezBasics
import ReportPDF

extension Peez.Admin {
    /// `peez admin console-link`.
    struct ConsoleLink: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "console-link",
            abstract: "Make a one-time link that signs a person in to the console at /console/.",
            discussion: """
                The link works once, within 10 minutes; the session it opens lasts 8 hours, in a cookie only the \
                browser holds. What the person does in the console is written to the audit trail as \
                "console (<name>)".

                Examples:
                  peez admin console-link --name Amina
                  PEEZ_PUBLIC_URL=https://cards.peez.dz peez admin console-link --name Karim
                """
        )
        @OptionGroup var store: StoreOptions
        @Option(help: "Who will use the link: the name the audit trail shows (default: your user name).") var name: String?
        @Option(help: "The service's address browsers reach (or PEEZ_PUBLIC_URL).") var publicUrl: String?

        func validate() throws {
            if let name, name.trimmingCharacters(in: .whitespaces).isEmpty || name.count > 80 {
                throw ValidationError("--name must be 1 to 80 characters")
            }
            if let name, let problem = TextRules.disguisingCharacterProblem(name) { throw ValidationError("--name \(problem)") }
        }

        func run() async throws {
            let creator = AuditActor.commandLine()
            let person = name ?? ProcessInfo.processInfo.environment["SUDO_USER"] ?? ProcessInfo.processInfo.environment["USER"] ?? "operator"
            let base = try store.linkBase(flag: publicUrl)
            let (url, expiresAt) = try await store.withStore { store in
                try await ConsoleSignIn(store: store, now: CardDates.clock).link(
                    for: AuditActor(label: "console (\(person))", credentialID: nil, address: "local"),
                    baseURL: base,
                    by: creator
                )
            }
            printNow(url)
            printError("one-time console link for \(person), valid once until \(AlgiersCalendar.minuteStamp(expiresAt)) (Algiers)")
        }
    }

    /// `peez admin report`.
    struct Report: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write one day's report (the console's panels) as CSV or PDF.",
            discussion: """
                The day is an Algiers calendar day. The CSV has one section per panel (sales per shop, renewals, \
                cards seen at two shops, reminders, Wallet, counters), each a header row and its rows; the PDF \
                has the same panels with their charts.

                Examples:
                  peez admin report --day 2026-11-25 --csv report.csv
                  peez admin report --day 2026-11-25 --pdf report.pdf --lang fr
                """
        )
        @OptionGroup var store: StoreOptions
        @Option(help: "The day, YYYY-MM-DD (default: yesterday in Algiers).") var day: String?
        @Option(help: "Write the report as CSV to this file (- for standard output).") var csv: String?
        @Option(help: "Write the report as PDF to this file.") var pdf: String?
        @Option(help: "en, fr or ar: the language of the PDF's texts.") var lang = "en"

        func validate() throws {
            guard (csv == nil) != (pdf == nil) else { throw ValidationError("give one of --csv FILE and --pdf FILE") }
            if let day, AlgiersCalendar.startOfDay(day) == nil { throw ValidationError("--day must be a day written YYYY-MM-DD") }
            guard ChartLanguage(rawValue: lang) != nil else { throw ValidationError("--lang must be en, fr or ar") }
        }

        func run() async throws {
            let dayNumber = day.flatMap(AlgiersCalendar.startOfDay).map(AlgiersCalendar.dayNumber) ?? AlgiersCalendar.dayNumber(CardDates.now()) - 1
            let language = ChartLanguage(rawValue: lang)!
            let texts = try ConsoleTexts(json: ConsoleAssets.consoleTexts)
            let report = try await store.withStore { store in
                try await DailyReport.make(ConsoleService(store: store, texts: texts, clock: CardDates.clock), day: dayNumber, language: language)
            }
            if let csv {
                let text = report.csv()
                if csv == "-" {
                    FileHandle.standardOutput.write(Data(text.utf8))
                } else {
                    try Data(text.utf8).write(to: URL(fileURLWithPath: csv))
                }
            }
            if let pdf {
                try ReportPDF.write(report.pages(texts: texts), to: pdf)
            }
            printError("report for \(AlgiersCalendar.dayText(dayNumber)) written")
        }
    }
}
