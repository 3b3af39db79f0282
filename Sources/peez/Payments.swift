public import ArgumentParser
import CardServices
import Chargily
import Foundation
import Membership
import MembershipSQL
import PeezBasics

extension PaymentStatus: ExpressibleByArgument {}

extension Peez {
    /// `peez payments`: members' online payments, as the team reconciles them.
    struct Payments: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Online payments (Chargily Pay): list, inspect, read back from Chargily, record a refund.",
            discussion: """
                Each works on the ledger directly, with the settings peez serve uses (--config, PEEZ_…). A paid \
                checkout has sold exactly one period; the service reads back every checkout whose end it has not \
                heard from Chargily, on its own (PEEZ_PAYMENT_CHECK_AFTER): `reconcile` does it now.

                Examples:
                  peez payments list --status pending
                  peez payments events --attention
                """,
            subcommands: [List.self, Show.self, Events.self, Reconcile.self, Refund.self]
        )
    }
}

extension Peez.Payments {
    /// One payment as a line of the listing.
    static func line(_ payment: Payment) -> String {
        TextRules.terminalSafe(
            "\(payment.id.lowercasedText)  \(AlgiersCalendar.minuteStamp(payment.createdAt))  \(payment.status.rawValue)  "
                + "\(payment.months) month(s)  \(payment.amountDZD) DZD  member \(payment.memberUUID.lowercasedText)  "
                + "checkout \(payment.checkoutID ?? "-")\(payment.livemode ? "" : "  (test)")"
        )
    }

    static func line(_ event: PaymentEvent) -> String {
        TextRules.terminalSafe(
            "\(event.seq)  \(AlgiersCalendar.minuteStamp(event.at))  \(event.source.rawValue)  \(event.reported)  checkout \(event.checkoutID)  "
                + "→ \(event.outcome.rawValue)\(event.outcome.needsAttention ? " (needs attention)" : "")  \(event.detail)"
        )
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List online payments, newest first.",
            discussion: """
                Examples:
                  peez payments list
                  peez payments list --status pending --limit 20
                """
        )
        @OptionGroup var store: StoreOptions
        @Option(help: "Only this status: \(PaymentStatus.allCases.map(\.rawValue).joined(separator: ", ")).") var status: PaymentStatus?
        @Option(help: "At most this many (1 to 1000).") var limit = 100

        func validate() throws {
            guard (1...1_000).contains(limit) else { throw ValidationError("--limit must be 1 to 1000") }
        }

        func run() async throws {
            let (status, limit) = (status, limit)
            let payments = try await store.withStore { try await $0.payments(status: status, limit: limit) }
            printNow(payments.isEmpty ? "no payment" : payments.map(Peez.Payments.line).joined(separator: "\n"))
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "One payment (by its id or its Chargily checkout id), with everything Chargily said of it.",
            discussion: """
                Example:
                  peez payments show 01hj5n7cqpaf0mt2d0xx85tgz8
                """
        )
        @OptionGroup var store: StoreOptions
        @Argument(help: "The payment's id (a UUID) or its checkout's id.") var payment: String

        func run() async throws {
            let reference = payment
            let (found, events, period) = try await store.withStore { store in
                let found = try await Peez.Payments.find(reference, in: store)
                let events = try await store.paymentEvents(needingAttention: false, checkoutID: found.checkoutID ?? "-", limit: 1_000)
                let period = try await found.periodID.asyncMap { try await store.period(id: $0) } ?? nil
                return (found, events, period)
            }
            var lines = [Peez.Payments.line(found)]
            if let period {
                lines.append(
                    "sold period \(period.id.lowercasedText): \(AlgiersCalendar.minuteStamp(period.startsAt)) to \(AlgiersCalendar.minuteStamp(period.endsAt))"
                        + (period.cancelledAt.map { ", cancelled \(AlgiersCalendar.minuteStamp($0))" } ?? "")
                )
            }
            if let url = found.checkoutURL { lines.append("page: \(TextRules.terminalSafe(url))") }
            lines.append(events.isEmpty ? "Chargily has said nothing of it yet" : "what Chargily said, newest first:")
            lines += events.map(Peez.Payments.line)
            printNow(lines.joined(separator: "\n"))
        }
    }

    /// The payment `reference` names: its id, else its checkout's id.
    static func find(_ reference: String, in store: some PaymentStore) async throws -> Payment {
        let found = try await UUID(strictText: reference).asyncMap { try await store.payment(id: $0) } ?? nil
        guard let payment = try await found.asyncOr({ try await store.payment(checkoutID: reference) }) else {
            throw ValidationError("no payment has the id or checkout id \(TextRules.terminalSafe(reference))")
        }
        return payment
    }

    struct Events: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "What Chargily said (webhooks and read-backs), newest first, and what each did.",
            discussion: """
                --attention lists only what the team should look at: a checkout paid for another amount, currency \
                or mode than asked (nothing was sold: refund it at Chargily, or sell the months at a counter), or \
                a checkout of no payment of this service.

                Example:
                  peez payments events --attention
                """
        )
        @OptionGroup var store: StoreOptions
        @Flag(help: "Only what needs the team's attention.") var attention = false
        @Option(help: "At most this many (1 to 1000).") var limit = 100

        func validate() throws {
            guard (1...1_000).contains(limit) else { throw ValidationError("--limit must be 1 to 1000") }
        }

        func run() async throws {
            let (attention, limit) = (attention, limit)
            let events = try await store.withStore { try await $0.paymentEvents(needingAttention: attention, checkoutID: nil, limit: limit) }
            printNow(events.isEmpty ? "nothing" : events.map(Peez.Payments.line).joined(separator: "\n"))
        }
    }

    struct Reconcile: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read back from Chargily now every payment whose end is not settled, and apply what it says.",
            discussion: """
                What the service does on its own, at once: a paid checkout whose webhook never came sells its \
                months (once, whatever else runs), one that ended unpaid is settled. Needs the service's signing key \
                and Chargily settings (as peez serve reads them).

                Example:
                  peez payments reconcile
                """
        )
        @OptionGroup var store: StoreOptions

        func run() async throws {
            let settings = try ServeConfiguration.asServeWouldRun(store: store, now: CardDates.now()).get()
            guard let chargily = settings.chargily else {
                throw ValidationError("online payments are not configured: set PEEZ_CHARGILY_SECRET_KEY (and the other PEEZ_CHARGILY_… settings)")
            }
            let gateway = ChargilyClient(configuration: chargily.configuration)
            let keyRing = settings.keyRing
            let summary: (checked: Int, lines: [String])
            do {
                summary = try await store.withStore { store in
                    let service = PaymentService(
                        store: store,
                        cards: CardService(store: store, keyRing: keyRing, clock: CardDates.clock),
                        gateway: gateway,
                        checkAfter: chargily.checkAfter
                    )
                    var lines: [String] = []
                    var checked = 0
                    for status in PaymentStatus.allCases where !status.isFinal && status != .creating {
                        for payment in try await store.payments(status: status, limit: 1_000) where payment.nextCheckAt != Payment.settled {
                            do {
                                let outcome = try await service.reconcile(payment)
                                checked += 1
                                lines.append("\(payment.id.lowercasedText)  checkout \(payment.checkoutID ?? "-")  → \(outcome.rawValue)")
                            } catch {
                                lines.append("\(payment.id.lowercasedText)  could not be read back: \(error)")
                            }
                        }
                    }
                    return (checked, lines)
                }
            } catch {
                await gateway.close()
                throw error
            }
            await gateway.close()
            printNow((summary.lines + ["\(summary.checked) payment(s) read back from Chargily"]).map(TextRules.terminalSafe).joined(separator: "\n"))
        }
    }

    struct Refund: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record a refund made at Chargily (outside the API): the period the payment sold is cancelled.",
            discussion: """
                Chargily's API has no refund: refund the member from Chargily's dashboard, then record it here. The \
                cancellation names the payment in the audit trail; the member's cards are revoked and the next one \
                shows the months left.

                Example:
                  peez payments refund 01hj5n7cqpaf0mt2d0xx85tgz8
                """
        )
        @OptionGroup var store: StoreOptions
        @Argument(help: "The payment's id (a UUID) or its checkout's id.") var payment: String

        func run() async throws {
            let reference = payment
            let result = try await store.withStore { store in
                let payment = try await Peez.Payments.find(reference, in: store)
                guard payment.status == .paid, let period = payment.periodID else {
                    throw ValidationError(
                        "payment \(payment.id.lowercasedText) is \(payment.status.rawValue): only a paid one sold months to take back"
                    )
                }
                return try await MemberChangeService(ledger: store, clock: CardDates.clock).cancelPeriod(
                    id: period,
                    by: .commandLine(),
                    refunding: payment.id
                )
            }
            printNow(
                "period \(result.period.id.lowercasedText) cancelled (\(result.period.months) month(s)); the member's paid time now ends "
                    + (result.coverageEnd.map(AlgiersCalendar.minuteStamp) ?? "nowhere: no paid time left")
            )
        }
    }
}

extension Optional {
    /// The wrapped value mapped by an async `transform`.
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }

    /// The wrapped value, else `other`'s.
    fileprivate func asyncOr(_ other: () async throws -> Wrapped?) async rethrows -> Wrapped? {
        if let self { return self }
        return try await other()
    }
}
