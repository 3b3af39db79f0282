public import ArgumentParser
import CardServices
public import Console
import ConsoleAssets
import ConsoleCharts
import Foundation
public import Membership
import MembershipSQL
import PeezAPI
import PeezBasics

extension RemittanceMethod: ExpressibleByArgument {}
extension ShopStatementFile.Format: ExpressibleByArgument {}

/// A shop's id argument, or a usage error naming it.
private func shopID(_ text: String) throws -> UUID {
    guard let id = UUID(strictText: text) else { throw ValidationError("--vendor must be a shop's id (a UUID, from peez admin vendors)") }
    return id
}

/// An Algiers day `YYYY-MM-DD`, or a usage error naming the option.
private func day(_ text: String, _ option: String) throws -> Int64 {
    guard let start = AlgiersCalendar.startOfDay(text) else { throw ValidationError("\(option) must be a day written YYYY-MM-DD") }
    return AlgiersCalendar.dayNumber(start)
}

/// The first and last day of the month `YYYY-MM`.
private func statementMonth(_ text: String) throws -> (first: Int64, last: Int64) {
    let first = try day(text + "-01", "--month (YYYY-MM)")
    return (first, AlgiersCalendar.firstDay(ofMonth: AlgiersCalendar.month(ofDay: first), adding: 1) - 1)
}

/// One entry on one line.
private func line(_ entry: ShopEntry) -> String {
    var parts = ["entry \(entry.seq)", AlgiersCalendar.dayText(entry.day), entry.kind.rawValue, "\(entry.amountDZD) DZD"]
    if entry.commissionDZD != 0 { parts.append("commission \(entry.commissionDZD) DZD") }
    if let method = entry.method { parts.append(method.rawValue) }
    if let reference = entry.reference, !reference.isEmpty { parts.append("reference \(reference)") }
    if let receivedBy = entry.receivedBy { parts.append("received by \(receivedBy)") }
    if let reverses = entry.reverses { parts.append("reverses entry \(reverses)") }
    if let reason = entry.reason { parts.append(reason) }
    return TextRules.terminalSafe(parts.joined(separator: "  "))
}

/// Records one team entry through the shop account service under the command line's key scope (`--key`, or a new
/// key), then prints the entry and whether it was recorded now or before under the key.
private func recordTeamEntry(
    _ store: StoreOptions,
    vendor: String,
    key: String?,
    _ record: @Sendable (ShopAccountService, _ vendorID: UUID, _ key: String) async throws -> (entry: ShopEntry, replayed: Bool)
) async throws {
    let (vendorID, key) = (try shopID(vendor), key ?? UUID().uuidString.lowercased())
    let recorded = try await store.withStore { store in
        try await record(ShopAccountService(store: store, now: CardDates.clock), vendorID, key)
    }
    printNow(line(recorded.entry))
    printError(
        recorded.replayed
            ? "already recorded under key \(key): nothing more was recorded"
            : "recorded under key \(key) (run the same command with --key \(key) to be sure it is recorded once)"
    )
}

extension Peez.Admin {
    /// `peez admin balances`.
    struct Balances: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List what each shop owes PEEZ, since when, largest first.",
            discussion: """
                A shop's balance is the cash its sales collected, less the commission it keeps, what it handed \
                over and its adjustments. "since" is the day of its oldest cash not yet remitted (the oldest is \
                paid first). Shops owing more than the team's limit (peez admin balance-limit) are marked OVER \
                LIMIT; --limit-dzd marks against another amount, for this list only.

                Examples:
                  peez admin balances
                  peez admin balances --limit-dzd 20000
                """
        )
        @OptionGroup var store: StoreOptions
        @Option(help: "Mark the shops owing more than this many dinars (default: the team's limit).") var limitDzd: Int64?

        func run() async throws {
            let limitDzd = limitDzd
            let (balances, limit): ([(balance: ShopBalance, vendor: Vendor)], Int64?) = try await store.withStore { store in
                let balances = try await ShopAccountService(store: store, now: CardDates.clock).balances()
                guard let limitDzd else { return (balances, try await store.balanceLimit()) }
                return (balances, limitDzd)
            }
            let today = AlgiersCalendar.dayNumber(CardDates.now())
            let lines = balances.map { balance, vendor in
                let since = balance.oldestUnremittedDay.map { "  since \(AlgiersCalendar.dayText($0)) (\(today - $0) days)" } ?? ""
                let over = limit.map { balance.balanceDZD > $0 ? "  OVER LIMIT" : "" } ?? ""
                return TextRules.terminalSafe("\(vendor.id.lowercasedText)  \(vendor.name)  owes \(balance.balanceDZD) DZD\(since)\(over)")
            }
            printNow(lines.isEmpty ? "no shop has an entry yet" : lines.joined(separator: "\n"))
        }
    }

    /// `peez admin balance-limit`.
    struct BalanceLimit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show or set the balance past which the team wants a shop shown.",
            discussion: """
                One limit for the whole team: the console's cash panel, peez admin balances and GET /v1/accounts \
                mark the shops owing more. Setting it is written to the audit trail.

                Examples:
                  peez admin balance-limit
                  peez admin balance-limit --dzd 20000
                  peez admin balance-limit --none
                """
        )
        @OptionGroup var store: StoreOptions
        @Option(help: "The limit, in whole dinars.") var dzd: Int?
        @Flag(help: "No limit.") var none = false

        func validate() throws {
            if dzd != nil, none { throw ValidationError("give --dzd or --none, not both") }
        }

        func run() async throws {
            let (dzd, none) = (dzd, none)
            let limit = try await store.withStore { store in
                guard dzd != nil || none else { return try await store.balanceLimit() }
                return try await ShopAccountService(store: store, now: CardDates.clock).setBalanceLimit(
                    BalanceLimitRequest(limit_dzd: dzd),
                    by: .commandLine()
                ).limit_dzd
            }
            printNow(limit.map { "shops owing more than \($0) DZD are past the limit" } ?? "no balance limit is set")
        }
    }

    /// `peez admin remit`.
    struct Remit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record cash a shop handed over to the team (once per --key).",
            discussion: """
                Refused when it is more than the shop owes, unless --override (it paid in advance, or the account \
                is wrong and will be adjusted). Written to the audit trail in the same transaction.

                Example:
                  peez admin remit --vendor <id> --amount 12000 --method ccp --received-by Karim
                """
        )
        @OptionGroup var store: StoreOptions
        @Option(help: "The shop's id (from peez admin vendors).") var vendor: String
        @Option(help: "Dinars handed over.") var amount: Int
        @Option(help: "cash, ccp, baridimob or bank_transfer.") var method: RemittanceMethod
        @Option(help: "Who on the team received it.") var receivedBy: String
        @Option(help: "The receipt's, transfer's or CCP slip's number.") var reference: String?
        @Option(help: "The day it was received, YYYY-MM-DD (default: today).") var on: String?
        @Flag(help: "Record more than the shop owes.") var override = false
        @Option(help: "The request's key: the same command with the same key records nothing more (default: a new one).") var key: String?

        func validate() throws {
            _ = try shopID(vendor)
            if let on { _ = try day(on, "--on") }
        }

        func run() async throws {
            let body = RemittanceRequest(
                amount_dzd: amount,
                received_on: on,
                method: method,
                reference: reference,
                received_by: receivedBy,
                override: override ? true : nil
            )
            try await recordTeamEntry(store, vendor: vendor, key: key) { service, vendorID, key in
                try await service.recordRemittance(body, vendorID: vendorID, keyScope: "peez admin", key: key, by: .commandLine())
            }
        }
    }

    /// `peez admin adjust`.
    struct Adjust: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record a correction to a shop's account, with its reason (once per --key).",
            discussion: """
                A positive amount adds to what the shop owes, a negative one takes off.

                Example:
                  peez admin adjust --vendor <id> --amount -300 --reason "counted twice"
                """
        )
        @OptionGroup var store: StoreOptions
        @Option(help: "The shop's id.") var vendor: String
        @Option(parsing: .unconditional, help: "Dinars, signed (--amount -300 takes off).") var amount: Int
        @Option(help: "Why.") var reason: String
        @Option(help: "The request's key (default: a new one).") var key: String?

        func validate() throws { _ = try shopID(vendor) }

        func run() async throws {
            let body = AdjustmentRequest(amount_dzd: amount, reason: reason)
            try await recordTeamEntry(store, vendor: vendor, key: key) { service, vendorID, key in
                try await service.recordAdjustment(body, vendorID: vendorID, keyScope: "peez admin", key: key, by: .commandLine())
            }
        }
    }

    /// `peez admin reverse`.
    struct Reverse: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Undo a remittance or adjustment recorded by mistake, with a new entry naming it.",
            discussion: """
                Nothing is edited or deleted: the reversal is an entry of its own. An entry is reversed once.

                Example:
                  peez admin reverse --vendor <id> --entry 42 --reason "wrong shop"
                """
        )
        @OptionGroup var store: StoreOptions
        @Option(help: "The shop's id.") var vendor: String
        @Option(help: "The entry's number (from peez admin statement).") var entry: Int64
        @Option(help: "Why.") var reason: String
        @Option(help: "The request's key (default: a new one).") var key: String?

        func validate() throws { _ = try shopID(vendor) }

        func run() async throws {
            let (entry, body) = (entry, ReversalRequest(reason: reason))
            try await recordTeamEntry(store, vendor: vendor, key: key) { service, vendorID, key in
                try await service.reverse(entry: entry, body, vendorID: vendorID, keyScope: "peez admin", key: key, by: .commandLine())
            }
        }
    }

    /// `peez admin commission`.
    struct Commission: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set what a shop keeps of each sale from a day to come, or list its commissions.",
            discussion: """
                A share of each sale (--percent, rounded to the nearest dinar) or dinars per month sold \
                (--per-month, never more than the sale); --none for no commission. Sales already recorded keep \
                theirs, so the first day is tomorrow at the earliest.

                Examples:
                  peez admin commission --vendor <id> --from 2026-12-01 --percent 5
                  peez admin commission --vendor <id> --from 2027-01-01 --per-month 15
                  peez admin commission --vendor <id>
                """
        )
        @OptionGroup var store: StoreOptions
        @Option(help: "The shop's id.") var vendor: String
        @Option(help: "The first day it applies to, YYYY-MM-DD.") var from: String?
        @Option(help: "A share of each sale, in percent (5.5 for 5.5 %).") var percent: Double?
        @Option(help: "Dinars per month sold.") var perMonth: Int?
        @Flag(help: "No commission from --from on.") var none = false

        func validate() throws {
            _ = try shopID(vendor)
            let given = [percent != nil, perMonth != nil, none].filter { $0 }.count
            if from == nil, given > 0 { throw ValidationError("--from says from which day the commission applies") }
            if from != nil, given != 1 { throw ValidationError("give one of --percent, --per-month and --none with --from") }
            if let percent, !(0...100).contains(percent) || (percent * 100).rounded() != percent * 100 {
                throw ValidationError("--percent must be from 0 to 100, with at most two decimals")
            }
        }

        func run() async throws {
            let vendorID = try shopID(vendor)
            let (from, basisPoints, perMonth) = (from, percent.map { Int(($0 * 100).rounded()) }, perMonth)
            let lines = try await store.withStore { store in
                let service = ShopAccountService(store: store, now: CardDates.clock)
                if let from {
                    _ = try await service.setCommission(
                        CommissionRequest(from: from, basis_points: basisPoints, per_month_dzd: perMonth),
                        vendorID: vendorID,
                        by: .commandLine()
                    )
                }
                _ = try await service.vendor(vendorID)
                return try await store.commissions(of: vendorID).map { commission in
                    let what =
                        commission.perMonthDZD > 0
                        ? "\(commission.perMonthDZD) DZD per month sold"
                        : commission.basisPoints > 0 ? ShopAccountService.percent(commission.basisPoints) + " of each sale" : "no commission"
                    return "from \(AlgiersCalendar.dayText(commission.fromDay))  \(what)  set by \(commission.setBy)"
                }
            }
            printNow(lines.isEmpty ? "no commission: the shop keeps nothing of its sales" : lines.map(TextRules.terminalSafe).joined(separator: "\n"))
        }
    }

    /// What a statement is asked for with: its period, format and language.
    struct StatementOptions: ParsableArguments {
        @Option(help: "A calendar month, YYYY-MM (default: this month).") var month: String?
        @Option(help: "The first day, YYYY-MM-DD (instead of --month).") var from: String?
        @Option(help: "The last day, YYYY-MM-DD (with --from; default: today).") var to: String?
        @Option(help: "json, csv, hledger, beancount or pdf.") var format: ShopStatementFile.Format = .pdf
        @Option(help: "en, fr or ar: the PDF's language.") var lang = "en"

        func validate() throws {
            if month != nil, from != nil || to != nil { throw ValidationError("give --month, or --from and --to, not both") }
            if let month { _ = try statementMonth(month) }
            if let from { _ = try day(from, "--from") }
            if let to { _ = try day(to, "--to") }
            if ChartLanguage(rawValue: lang) == nil { throw ValidationError("--lang must be en, fr or ar") }
        }

        /// The period's first and last day.
        func period(today: Int64) throws -> (Int64, Int64) {
            if let month { return try statementMonth(month) }
            if let from { return (try day(from, "--from"), try to.map { try day($0, "--to") } ?? today) }
            return (AlgiersCalendar.firstDay(ofMonth: AlgiersCalendar.month(ofDay: today)), today)
        }

        /// The statement's file.
        func file(_ statement: ShopStatement, _ service: ShopAccountService) async throws -> [UInt8] {
            try ShopStatementFile.bytes(
                statement,
                as: format,
                language: ChartLanguage(rawValue: lang) ?? .en,
                texts: try ConsoleTexts(json: ConsoleAssets.consoleTexts),
                madeAt: CardDates.now(),
                reversedKinds: try await service.reversedKinds(in: statement)
            )
        }
    }

    /// `peez admin statement`.
    struct Statement: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a shop's statement: opening balance, each day, remittances and adjustments, closing balance.",
            discussion: """
                As a PDF (in English, French or Arabic), CSV, JSON, or a journal for hledger or beancount that \
                asserts the closing balance.

                Examples:
                  peez admin statement --vendor <id> --month 2026-11 --output nov.pdf
                  peez admin statement --vendor <id> --format hledger --output -
                """
        )
        @OptionGroup var store: StoreOptions
        @OptionGroup var statement: StatementOptions
        @Option(help: "The shop's id.") var vendor: String
        @Option(help: "The file to write (- for standard output).") var output: String

        func validate() throws { _ = try shopID(vendor) }

        func run() async throws {
            let vendorID = try shopID(vendor)
            let (options, output) = (statement, output)
            let bytes = try await store.withStore { store in
                let service = ShopAccountService(store: store, now: CardDates.clock)
                let (from, to) = try options.period(today: AlgiersCalendar.dayNumber(CardDates.now()))
                return try await options.file(try await service.statement(of: vendorID, from: from, to: to), service)
            }
            if output == "-" {
                FileHandle.standardOutput.write(Data(bytes))
            } else {
                try Data(bytes).write(to: URL(fileURLWithPath: output))
                printError("statement written to \(output)")
            }
        }
    }

    /// `peez admin statements`.
    struct Statements: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write every shop's statement for a period into a folder, one file each.",
            discussion: """
                Each file is named after the shop's id and the period. Shops with no entry ever are skipped.

                Example:
                  peez admin statements --month 2026-11 --lang ar --folder nov
                """
        )
        @OptionGroup var store: StoreOptions
        @OptionGroup var statement: StatementOptions
        @Option(help: "The folder to write into (made if missing).") var folder: String

        func run() async throws {
            let (options, folder) = (statement, folder)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let written = try await store.withStore { store in
                let service = ShopAccountService(store: store, now: CardDates.clock)
                let (from, to) = try options.period(today: AlgiersCalendar.dayNumber(CardDates.now()))
                var written = 0
                for (_, vendor) in try await service.balances() {
                    let statement = try await service.statement(of: vendor.id, from: from, to: to)
                    let path = (folder as NSString).appendingPathComponent(ShopStatementFile.name(statement, as: options.format))
                    try Data(try await options.file(statement, service)).write(to: URL(fileURLWithPath: path))
                    written += 1
                }
                return written
            }
            printError("\(written) statement(s) written to \(folder)")
        }
    }
}
