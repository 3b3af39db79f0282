import ArgumentParser
import CardToken
import Foundation
import Membership
import PeezServices

/// The counter's display: one large verdict line a person reads across the counter, the member and the days
/// left, and a running tally; or one JSON object a verdict.
struct CounterReport {
    struct Tally {
        var counts: [String: Int] = [:]
        var total = 0
    }

    var colour: Bool
    var bell: Bool
    var json: Bool

    /// Colour only on a terminal, and never with `NO_COLOR` set (no-color.org).
    static func wantsColour() -> Bool {
        isatty(1) == 1 && (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
    }

    func write(_ verdict: CounterVerdict, tally: inout Tally, now: Int64 = CardDates.now()) {
        let word = Self.word(verdict)
        tally.total += 1
        tally.counts[word, default: 0] += 1
        if json {
            var fields = [("verdict", JSONText.string(verdict.code))]
            if case .card(let result) = verdict.outcome, let claims = result.claims {
                fields += [("sub", JSONText.string(claims.subject)), ("name", claims.name.map(JSONText.string) ?? "null"),
                           ("exp", String(claims.expiresAt)), ("days_left", String(CoverageSchedule.daysLeft(until: claims.expiresAt, now: now)))]
            }
            if let detail = Self.detail(verdict) { fields.append(("detail", JSONText.string(detail))) }
            if !verdict.warnings.isEmpty { fields.append(("warnings", "[" + verdict.warnings.map(JSONText.string).joined(separator: ", ") + "]")) }
            printNow("{" + fields.map { "\(JSONText.string($0.0)): \($0.1)" }.joined(separator: ", ") + "}")
            return
        }
        var lines = [paint("  \(word)  ", word)]
        if case .card(let result) = verdict.outcome, let claims = result.claims {
            lines.append("  \(claims.name ?? "(no name on the card)")  ·  \(claims.subject)")
            lines.append("  paid until \(CardDates.display(claims.expiresAt)) (Algiers)  ·  \(CoverageSchedule.daysLeft(until: claims.expiresAt, now: now)) day(s) left")
        }
        if let detail = Self.detail(verdict) { lines.append("  \(detail)") }
        for warning in verdict.warnings { lines.append("  ! \(warning)") }
        lines.append("  [" + ["VALID", "EXPIRED", "REVOKED", "INVALID", "CANNOT CONFIRM"].compactMap { key in
            tally.counts[key].map { "\(key.lowercased()) \($0)" } }.joined(separator: " · ") + " · \(tally.total) scanned]")
        printNow(lines.joined(separator: "\n") + (bell && word != "VALID" ? "\u{07}" : ""))
    }

    /// The one word a vendor reads.
    static func word(_ verdict: CounterVerdict) -> String {
        switch verdict.outcome {
        case .cannotConfirm: return "CANNOT CONFIRM"
        case .card(let result):
            switch result.verdict {
            case .valid: return "VALID"
            case .expired: return "EXPIRED"
            case .revoked: return "REVOKED"
            default: return "INVALID"
            }
        }
    }

    static func detail(_ verdict: CounterVerdict) -> String? {
        switch verdict.outcome {
        case .cannotConfirm(let reason): return reason
        case .card(let result): return result.verdict == .valid ? nil : "\(result.verdict.summary): \(result.detail)"
        }
    }

    /// Green for VALID, red for a refusal, amber for CANNOT CONFIRM; bold and reversed, large on a terminal.
    private func paint(_ text: String, _ word: String) -> String {
        guard colour else { return text }
        let code = word == "VALID" ? "42;30" : word == "CANNOT CONFIRM" ? "43;30" : "41;97"
        return "\u{1B}[1;\(code)m\(text)\u{1B}[0m"
    }

    static func printChanges(_ changes: CounterSync.Changes) {
        var lines: [String] = []
        if !changes.keysAdded.isEmpty { lines.append("keys added: \(changes.keysAdded.joined(separator: ", "))") }
        if !changes.keysRemoved.isEmpty { lines.append("keys removed: \(changes.keysRemoved.joined(separator: ", "))") }
        lines.append("revocations: \(changes.whole ? "whole list" : "changes only"), \(changes.tokenIDsAdded) card(s) and \(changes.membersAdded) member(s) new, version \(changes.revocationVersion)")
        lines.append("trust data valid until \(CardDates.display(changes.validUntil)) (Algiers)")
        if abs(changes.clockDrift) > 300 {
            lines.append("warning: this device's clock is \(abs(changes.clockDrift) / 60) min \(changes.clockDrift > 0 ? "ahead of" : "behind") the service's; set it right")
        }
        printNow(lines.joined(separator: "\n"))
    }

    /// The receipt of a sale, or why there is none; throws exit status 1 unless the sale was recorded.
    static func printSale(_ sale: SaleJournal.PendingSale, _ outcome: CounterSeller.Outcome) throws {
        let who = "\(sale.name ?? "member") (\(sale.membershipID))"
        switch outcome {
        case .recorded(let coverageEnd):
            printNow("SOLD  \(who): \(sale.months) month(s), \(sale.amountDZD) DZD; paid until \(coverageEnd)")
        case .refused(let reason):
            printNow("REFUSED  \(who): \(reason). Nothing was sold: give the \(sale.amountDZD) DZD back.")
            throw ExitCode(1)
        case .pending(let problem):
            printNow("NOT CONFIRMED  \(who): \(problem). The sale is kept; run peez counter retry when the network is back.")
            throw ExitCode(1)
        }
    }
}
