import ArgumentParser
import CardToken
import CardWire
import CounterApp
import Foundation
import Membership

extension Peez.Counter {
    /// `peez counter activate`: a cash sale of 1 to 3 months to the member whose card is scanned.
    struct Activate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sell 1 to 3 months for cash to the member whose card is scanned next.",
            discussion: """
                Checks the amount (300 DZD a month), reads one scan (an expired or revoked card is fine: any \
                authentic card names its member), writes the sale to the counter's journal with a fresh \
                idempotency key, flushed to disk, and only then sends it. While the answer is unknown (no \
                network, a timeout) it is sent again under the same key; if it never comes, the sale stays pending \
                for peez counter retry. One payment is never two activations, and never forgotten.

                A member whose phone cannot show the card is named by the membership id printed on it instead \
                (--membership-id): the service checks it.

                Examples:
                  peez counter activate --months 2 --paid 600   # then scan the member's card
                  id=PEEZ-20251103-00002      # the membership id printed on the card
                  peez counter activate --months 1 --paid 300 --membership-id $id
                """
        )

        @OptionGroup var options: CounterFolderOptions
        @OptionGroup var language: CounterLanguageOptions

        @Option(help: "Months paid for: 1, 2 or 3.")
        var months: Int

        @Option(help: "The cash received, in DZD (300 a month).")
        var paid: Int

        @Option(help: "The scanned card token (default: read one line from standard input, as a scanner types it).")
        var token: String?

        @Option(help: "The member's membership id (PEEZ-YYYYMMDD-NNNNN), when no card can be scanned.")
        var membershipId: String?

        @Option(help: "How many times to send the sale while its answer is unknown, with growing pauses (about 20 s for 6).")
        var attempts = 6

        func validate() throws {
            guard token == nil || membershipId == nil else { throw ValidationError("give --token or --membership-id, not both") }
            if let membershipId, !Member.isMembershipID(membershipId) {
                throw ValidationError("--membership-id must look like PEEZ-20251103-00002, not '\(membershipId.prefix(40))'")
            }
            let rules = CounterRules.shared
            guard rules.monthsSold.contains(months) else { throw ValidationError("--months must be 1, 2 or 3") }
            guard (1...20).contains(attempts) else { throw ValidationError("--attempts must be 1 to 20") }
            guard paid == rules.price(months: months) else {
                throw ValidationError("\(months) month(s) cost \(rules.price(months: months)) DZD; --paid says \(paid)")
            }
        }

        func run() async throws {
            try await options.withUsableStore(language.texts) { store in
                let (state, trust, note) = try store.load()
                if let note { printError("warning: \(note)") }
                let journal = store.saleJournal
                let sale: SaleJournal.PendingSale
                if let membershipId {
                    sale = try journal.begin(membershipID: membershipId, name: nil, months: months, amountDZD: paid, now: CardDates.now())
                } else {
                    sale = try scannedSale(store: store, state: state, trust: trust, journal: journal)
                }
                let client = try store.client(for: state)
                let seller = CounterSeller(client: client, journal: journal, attempts: attempts)
                let outcome = try await seller.send(sale, now: CardDates.clock)
                try await Peez.Counter.finish(sale, outcome, store: store, client: client, texts: language.texts)
            }
        }

        /// The sale to the member whose card is scanned (or given with --token), journaled.
        private func scannedSale(
            store: CounterStore,
            state: CounterState,
            trust: CounterTrust,
            journal: SaleJournal
        ) throws -> SaleJournal.PendingSale {
            let scanned: [UInt8]
            if let token {
                scanned = Array(token.utf8)
            } else {
                printError("scan the member's card…")
                var reader = LineReader(fileDescriptor: 0, maxLineLength: CardTokenFormat.maxTokenLength + 64)
                guard case .text(let bytes)? = reader.nextLine() else { throw ValidationError("no card was scanned") }
                scanned = bytes
            }
            let now = CardDates.now()
            // Any authentic card names its member (expired or revoked is fine: a lapsed member renews with it).
            let result = try trust.verifier().verify(utf8: scanned, now: now)
            guard let claims = result.claims else {
                // Nothing is sold to a card that names nobody; said in the shop's language, as the counter says it.
                printError(language.texts.text("invalid", ["reason": language.texts.text("reason." + result.verdict.rawValue)]))
                throw ExitCode(1)
            }
            // Paid already (the card, a renewal, this counter's own sale): say so, so that a second sale is a decision.
            let verdict = CounterVerdict.judge(scanned, trust: trust.adding(ownSales: try journal.ownRenewals()), state: state, now: now)
            if verdict.isValid {
                let paidUntil = verdict.renewal?.paidUntil ?? claims.expiresAt
                printError(language.texts.text("sale.already_paid", ["end": language.texts.time(paidUntil), "months": String(months)]))
            }
            return try journal.begin(membershipID: claims.subject, name: claims.name, months: months, amountDZD: paid, now: now)
        }
    }

    /// `peez counter pending`: sales whose answer never came.
    struct Pending: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the sales written to the journal whose answer never came.",
            discussion: """
                Example:
                  peez counter pending
                """
        )

        @OptionGroup var options: CounterFolderOptions
        @OptionGroup var language: CounterLanguageOptions

        func run() async throws {
            // A cut-off counter lists its sales to give back with the cut-off, not here.
            try await options.withUsableStore(language.texts) { store in try list(store) }
        }

        private func list(_ store: CounterStore) throws {
            let pending = try store.saleJournal.pending()
            if pending.isEmpty { printNow("no pending sale") }
            for sale in pending {
                printNow(
                    "\(CardDates.display(sale.at))  \(sale.membershipID)  \(sale.name ?? "")  \(sale.months) month(s)  \(sale.amountDZD) DZD  key \(sale.key)"
                )
            }
        }
    }

    /// `peez counter retry`: sends each pending sale again, under its own key.
    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send every pending sale again, each under its original idempotency key.",
            discussion: """
                A sale the service already recorded is answered with that record again, not sold twice.

                Example:
                  peez counter retry
                """
        )

        @OptionGroup var options: CounterFolderOptions
        @OptionGroup var language: CounterLanguageOptions

        @Option(help: "How many times to send each sale while its answer is unknown, with growing pauses.")
        var attempts = 6

        func validate() throws {
            guard (1...20).contains(attempts) else { throw ValidationError("--attempts must be 1 to 20") }
        }

        func run() async throws {
            try await options.withUsableStore(language.texts) { store in
                let (state, _, _) = try store.load()
                let client = try store.client(for: state)
                let seller = CounterSeller(client: client, journal: store.saleJournal, attempts: attempts)
                var stillPending = false
                for sale in try store.saleJournal.pending() {
                    let outcome = try await seller.send(sale, now: CardDates.clock)
                    if case .pending = outcome { stillPending = true }
                    do { try await Peez.Counter.finish(sale, outcome, store: store, client: client, texts: language.texts) } catch is ExitCode {
                        stillPending = true
                    }
                }
                if stillPending { throw ExitCode(1) }
            }
        }
    }

    /// Prints a sale's receipt, or why there is none (exit status 1 unless it was recorded). A sale refused because
    /// the service refused this counter's own credential cuts the counter off: its mark is thrown, to be said.
    static func finish(
        _ sale: SaleJournal.PendingSale,
        _ outcome: CounterSeller.Outcome,
        store: CounterStore,
        client: CounterClient,
        texts: CounterTexts
    ) async throws {
        guard case .refused(let problem) = outcome, problem.refusesThisDevice else {
            return try CounterReport.printSale(sale, outcome, texts: texts)
        }
        try? CounterReport.printSale(sale, outcome, texts: texts)
        throw try await store.cutOff(after: problem, client: client, now: CardDates.clock)
    }
}

/// The vendor secret: `PEEZ_VENDOR_SECRET`, else the one kept at enrolment.
extension CounterStore {
    /// A client for the enrolled service, with the vendor secret and the CA file kept at enrolment.
    func client(for state: CounterState) throws -> CounterClient {
        try CounterClient(server: state.server, secret: try CounterSecret.resolve(self), certificateAuthority: certificateAuthority)
    }
}

enum CounterSecret {
    static func resolve(_ store: CounterStore) throws -> String {
        if let secret = SettingsReader.fromEnvironment("PEEZ_VENDOR_SECRET") { return secret }
        guard let secret = try store.savedSecret() else { throw ValidationError("no vendor secret: set PEEZ_VENDOR_SECRET, or enrol again") }
        return secret
    }
}
