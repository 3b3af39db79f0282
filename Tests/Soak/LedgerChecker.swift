public import Foundation
public import PeezAPI

/// A broken guarantee: which, about what, and the part of the history that shows it.
public struct Violation: Sendable {
    public let invariant: String
    public let message: String
    /// The member it concerns, if one.
    public let member: String?
}

/// The violations found so far, and how many checks were made.
public struct Findings {
    public var violations: [Violation] = []
    public var checks = 0

    mutating func expect(_ condition: Bool, _ invariant: String, _ message: @autoclosure () -> String, member: String?) {
        checks += 1
        if !condition { violations.append(Violation(invariant: invariant, message: message(), member: member)) }
    }
}

/// Checks a run's history against the ledger it left, from the guarantees' definitions alone (nothing of the
/// service's code): every sale answered as made is stored exactly once, no sale is stored that no invocation
/// explains (a sale whose answer was lost, at most once), a sale refused is not stored, an answered cancellation
/// is applied and none other is, each member's live periods lie end to end from their purchases, the paid time
/// shown is the end of the last, and no card fetched after a revoking change was answered is one it revoked. The
/// extensions check the rest of what a run does: cards against members' changes and the revocation list
/// (+Members), credentials and enrolment codes (+Credentials), payments (+Payments), the console (+Console),
/// scans (+Scans), reminders (+Reminders), the shops' accounts (+Accounts), Apple Wallet's pushes (+Wallet) and
/// Google Wallet's objects (+GoogleWallet).
public struct LedgerChecker {
    public let history: [HistoryEntry]
    /// Every member's subscription as the service reads it after the run.
    public let ledger: [SubscriptionBody]
    /// What `POST /v1/verify` answered after the run for the cards of ``staleFetches`` (by token id).
    public let verdicts: [String: String]
    /// What the service and the gateway said once the run was over: payments, the revocation list, the console.
    public let final: FinalReads

    /// How long a change made through one instance may take to reach another's memory (PostgreSQL's NOTIFY: a
    /// millisecond or so; a second on a loaded machine); the instance that made it never serves the old card.
    public static let propagationBound = 1.0

    public init(history: [HistoryEntry], ledger: [SubscriptionBody], verdicts: [String: String] = [:], final: FinalReads = FinalReads()) {
        self.history = history
        self.ledger = ledger
        self.verdicts = verdicts
        self.final = final
    }

    /// The card fetches answered with a card from a state older than a revoking change that had been answered
    /// before the fetch began, each with that change.
    public var staleFetches: [(fetch: HistoryEntry, change: HistoryEntry)] {
        let revoking = history.filter { $0.kind == .cancellation && $0.outcome == .ok && $0.revokedBefore != nil && $0.member != nil }
        let byMember = Dictionary(grouping: revoking) { $0.member ?? "" }
        return history.filter { $0.kind == .cardFetch && $0.outcome == .ok }.compactMap { fetch in
            guard let issued = fetch.issuedAt.flatMap(Self.time) else { return nil }
            let change = (byMember[fetch.member ?? ""] ?? []).first { change in
                change.completed < fetch.invoked && change.revokedBefore.flatMap(Self.time).map { issued < $0 } == true
            }
            return change.map { (fetch, $0) }
        }
    }

    /// The violations found, how many checks were made, and how many sales whose answer was lost the ledger holds.
    public func check() -> (violations: [Violation], checks: Int, lostAnswersStored: Int) {
        var findings = Findings()
        func expect(_ condition: Bool, _ invariant: String, _ message: @autoclosure () -> String, member: String?) {
            findings.expect(condition, invariant, message(), member: member)
        }
        let stored = Dictionary(ledger.flatMap(\.periods).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let storedCount = Dictionary(ledger.flatMap(\.periods).map { ($0.id, 1) }, uniquingKeysWith: +)
        let sales = history.filter { $0.kind == .sale }
        let cancellations = history.filter { $0.kind == .cancellation }

        for sale in sales where sale.outcome == .ok {
            guard let id = sale.period else {
                expect(false, "acknowledged sale stored exactly once", "sale \(sale.index) was answered 2xx without a period", member: sale.member)
                continue
            }
            let period = stored[id]
            expect(
                storedCount[id] == 1 && period?.member_uuid == sale.member && period?.months == sale.months && period?.vendor_id == sale.vendor,
                "acknowledged sale stored exactly once",
                "sale \(sale.index) (key \(sale.idempotencyKey ?? "")) was answered as period \(id); the ledger holds it \(storedCount[id] ?? 0) time(s)"
                    + (period.map { " as \($0.months) month(s) for \($0.member_uuid)" } ?? ""),
                member: sale.member
            )
        }

        // A stored period no answered sale names must be a sale whose answer was lost, each at most once.
        let answered = Set(sales.compactMap(\.period))
        var unknown = sales.filter { $0.outcome == .unknown }
        let lostAnswers = unknown.count
        let paidPeriods = Set(final.payments.filter { $0.status == "paid" }.compactMap(\.period_id))
        for period in ledger.flatMap(\.periods) where !answered.contains(period.id) && !paidPeriods.contains(period.id) {
            let match = unknown.firstIndex { $0.member == period.member_uuid && $0.months == period.months && $0.vendor == period.vendor_id }
            expect(
                match != nil,
                "no sale stored that no invocation explains",
                "period \(period.id) (\(period.months) month(s) at \(period.vendor_id ?? "the app") for \(period.member_uuid), \(period.source), "
                    + "bought \(period.purchased_at), \(period.status)) answers no sale, and no sale whose answer was lost is left to explain it",
                member: period.member_uuid
            )
            if let match { unknown.remove(at: match) }
        }

        let cancelledSomehow = Set(cancellations.filter { $0.outcome != .refused }.compactMap(\.period))
        for cancellation in cancellations where cancellation.outcome == .ok {
            guard let id = cancellation.period else { continue }
            expect(
                stored[id]?.status == "cancelled",
                "answered cancellation applied",
                "cancellation \(cancellation.index) of period \(id) was answered 2xx; the ledger shows it \(stored[id]?.status ?? "missing")",
                member: stored[id]?.member_uuid
            )
        }
        for period in ledger.flatMap(\.periods) where period.status == "cancelled" {
            expect(
                cancelledSomehow.contains(period.id),
                "no cancellation stored that no invocation explains",
                "period \(period.id) is cancelled, and no cancellation of it was sent",
                member: period.member_uuid
            )
        }

        for subscription in ledger {
            checkSchedule(of: subscription, &findings)
        }

        // A card answered from a state older than a revoking change answered before the fetch began is invalid
        // afterwards (the change revoked it); and only another instance, within the propagation bound, answers one.
        // An answer that did not read as the API's body would leave its operation out of the checks below.
        for operation in history where operation.outcome == .ok {
            switch operation.kind {
            case .cardFetch:
                expect(
                    operation.issuedAt.flatMap(Self.time) != nil,
                    "answers read",
                    "card fetch \(operation.index) was answered 2xx without a card",
                    member: operation.member
                )
            case .cancellation:
                expect(
                    operation.revokedBefore.flatMap(Self.time) != nil && operation.member != nil,
                    "answers read",
                    "cancellation \(operation.index) was answered 2xx without the period and the cards it revoked",
                    member: operation.member
                )
            default: break
            }
        }
        for (fetch, change) in staleFetches {
            let verdict = verdicts[fetch.tokenID ?? ""]
            expect(
                verdict != nil && verdict != "valid",
                "a card answered from a state a completed revoking change left is invalid afterwards",
                "card \(fetch.tokenID ?? "") (fetch \(fetch.index)) was issued \(fetch.issuedAt ?? ""), before cancellation \(change.index) revoked the "
                    + "cards issued before \(change.revokedBefore ?? ""); verified after the run it is \(verdict ?? "not verified")",
                member: fetch.member
            )
            let late = fetch.invoked - change.completed
            expect(
                fetch.instance != change.instance && late <= Self.propagationBound,
                "no card answered that a completed revoking change revoked",
                "fetch \(fetch.index) from instance \(fetch.instance ?? 0) began \(String(format: "%.3f", late)) s after cancellation \(change.index) "
                    + "was answered by instance \(change.instance ?? 0), revoking the cards issued before \(change.revokedBefore ?? ""), and was "
                    + "answered card \(fetch.tokenID ?? "") issued \(fetch.issuedAt ?? "")",
                member: fetch.member
            )
        }
        checkMembersChanges(&findings)
        checkCredentials(&findings)
        checkPayments(&findings)
        checkConsole(&findings)
        checkScans(&findings)
        checkReminders(&findings)
        checkAccounts(&findings)
        checkWallet(&findings)
        checkGoogleWallet(&findings)
        return (findings.violations, findings.checks, lostAnswers - unknown.count)
    }

    /// Each live period starts at the later of its purchase and the end of the live one before it and lasts its
    /// months in Algiers; the paid time shown ends where the last live period ends.
    private func checkSchedule(of subscription: SubscriptionBody, _ findings: inout Findings) {
        func expect(_ condition: Bool, _ invariant: String, _ message: @autoclosure () -> String, _ member: String?) {
            findings.expect(condition, invariant, message(), member: member)
        }
        let member = subscription.member_uuid
        // The API lists a member's periods newest first.
        let purchaseOrder = subscription.periods.reversed()
        var previousEnd: Date?
        for period in purchaseOrder where period.status != "cancelled" {
            guard let purchased = Self.time(period.purchased_at), let starts = Self.time(period.starts_at), let ends = Self.time(period.ends_at)
            else {
                expect(false, "periods laid end to end", "period \(period.id) has a date that is not ISO 8601", member)
                continue
            }
            let expectedStart = max(purchased, previousEnd ?? purchased)
            let expectedEnd = Self.algiers.date(byAdding: .month, value: period.months, to: expectedStart)
            expect(
                starts == expectedStart && ends == expectedEnd,
                "periods laid end to end",
                "period \(period.id) runs \(period.starts_at) to \(period.ends_at); bought \(period.purchased_at) after paid time ending "
                    + "\(previousEnd.map(Self.text) ?? "never"), it should run from \(Self.text(expectedStart)) for \(period.months) month(s)",
                member
            )
            previousEnd = ends
        }
        expect(
            subscription.coverage.ends_at.flatMap(Self.time) == previousEnd,
            "paid time ends with the last live period",
            "the coverage shown ends \(subscription.coverage.ends_at ?? "never"); the last live period ends \(previousEnd.map(Self.text) ?? "never")",
            member
        )
    }

    static func time(_ text: String) -> Date? {
        ISO8601DateFormatter().date(from: text)
    }

    /// A moment as the API writes it (ISO 8601 in Algiers' offset).
    static func text(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = algiers.timeZone
        return formatter.string(from: date)
    }

    static let algiers: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Africa/Algiers")!
        return calendar
    }()
}
