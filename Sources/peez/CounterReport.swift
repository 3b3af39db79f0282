import ArgumentParser
import CardToken
import CardWire
import CounterApp
import Foundation
import Membership
import PeezBasics

/// The counter's display, in the shop's language: one large verdict word a person reads across the counter,
/// then what the vendor needs for that verdict (the coverage only for VALID; what to do otherwise), and a
/// running tally; or one JSON object a verdict.
struct CounterReport {
    struct Tally {
        var counts: [String: Int] = [:]
        var total = 0
    }

    var colour: Bool
    var bell: Bool
    var json: Bool
    var texts: CounterTexts

    /// Colour only on a terminal, and never with `NO_COLOR` set (no-color.org).
    static func wantsColour() -> Bool {
        isatty(1) == 1 && (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
    }

    /// The verdict's key in the texts and the tally: one per word a vendor reads.
    enum Word: String, CaseIterable {
        case valid, expired
        case noPaidPeriod = "no_paid_period"
        /// An authentic card bound to a phone, shown bare: the live code from the app is needed (not a fake).
        case presentationRequired = "presentation_required"
        case revoked, invalid
        case cannotConfirm = "cannot_confirm"

        init(_ verdict: CounterVerdict) {
            switch verdict.outcome {
            case .cannotConfirm: self = .cannotConfirm
            case .card where verdict.renewal != nil: self = .valid
            case .card(let result):
                switch result.verdict {
                case .valid: self = .valid
                case .expired: self = .expired
                case .noPaidPeriod: self = .noPaidPeriod
                case .presentationRequired: self = .presentationRequired
                case .revoked: self = .revoked
                default: self = .invalid
                }
            }
        }
    }

    /// Writes the verdict; `file`, when the scan came from a picture, prefixes it.
    func write(_ verdict: CounterVerdict, tally: inout Tally, now: Int64 = CardDates.now(), file: String? = nil) {
        let word = Word(verdict)
        tally.total += 1
        tally.counts[word.rawValue, default: 0] += 1
        if json {
            var fields = file.map { [("file", JSONText.string($0))] } ?? []
            fields.append(("verdict", JSONText.string(verdict.code)))
            if case .card(let result) = verdict.outcome, let claims = result.claims {
                fields += [
                    ("sub", JSONText.string(claims.subject)), ("name", claims.name.map(JSONText.string) ?? "null"), ("exp", String(claims.expiresAt)),
                ]
                let paidUntil = verdict.renewal?.paidUntil ?? claims.expiresAt
                if word == .valid { fields.append(("days_left", String(CoverageSchedule.daysLeft(until: paidUntil, now: now)))) }
                if let renewal = verdict.renewal { fields += [("paid_until", String(renewal.paidUntil)), ("card_not_refreshed", "true")] }
            }
            if let detail = Self.detail(verdict) { fields.append(("detail", JSONText.string(detail))) }
            if !verdict.warnings.isEmpty {
                fields.append(("warnings", "[" + verdict.warnings.map { JSONText.string($0.description) }.joined(separator: ", ") + "]"))
            }
            printNow("{" + fields.map { "\(JSONText.string($0.0)): \($0.1)" }.joined(separator: ", ") + "}")
            return
        }
        var lines = [(file.map { "\($0): " } ?? "") + paint("  \(texts.text("word." + word.rawValue))  ", word)]
        lines += explanation(verdict, word: word, now: now).map { "  " + $0 }
        for warning in verdict.warnings {
            switch warning {
            case .trustAge(let hours): lines.append("  ! " + texts.text("warning.trust_age", ["hours": String(hours)]))
            case .samePresentation(let first): lines.append("  ! " + texts.text("warning.same_presentation", ["time": texts.time(first)]))
            }
        }
        let counts = Word.allCases.compactMap { key in tally.counts[key.rawValue].map { "\(texts.text("word." + key.rawValue).lowercased()) \($0)" } }
        lines.append("  [" + texts.text("tally", ["counts": counts.joined(separator: " · "), "total": String(tally.total)]) + "]")
        printNow(lines.map(directed).joined(separator: "\n") + (bell && word != .valid ? "\u{07}" : ""))
    }

    /// What the vendor needs for the verdict: the coverage only when VALID; otherwise what it means and what
    /// to do, never a coverage the member does not have.
    func explanation(_ verdict: CounterVerdict, word: Word, now: Int64) -> [String] {
        switch verdict.outcome {
        case .cannotConfirm(let reason):
            switch reason {
            case .clockBehind(let device, let service):
                return [
                    texts.text("cannot_confirm.clock_behind", ["device": texts.time(device), "service": texts.time(service)]),
                    texts.text("cannot_confirm.clock_behind.next"),
                ]
            case .trustExpired(let validUntil):
                return [
                    texts.text("cannot_confirm.trust_expired", ["until": texts.time(validUntil)]), texts.text("cannot_confirm.trust_expired.next"),
                ]
            case .trustUnusable(let detail):
                return [texts.text("cannot_confirm.trust_unusable", ["detail": detail]), texts.text("cannot_confirm.trust_unusable.next")]
            case .trustDamaged(let detail):
                return [texts.text("cannot_confirm.trust_damaged", ["detail": detail]), texts.text("cannot_confirm.trust_damaged.next")]
            }
        case .card(let result):
            var lines: [String] = []
            if let claims = result.claims {
                lines.append(texts.text("member", ["name": claims.name ?? texts.text("member.no_name"), "membership_id": claims.subject]))
            }
            switch word {
            case .valid:
                let paidUntil = verdict.renewal?.paidUntil ?? result.claims!.expiresAt
                lines.append(
                    texts.text(
                        "valid",
                        [
                            "end": texts.time(paidUntil),
                            "days": String(CoverageSchedule.daysLeft(until: paidUntil, now: now)),
                        ]
                    )
                )
                if verdict.renewal != nil { lines.append(texts.text("valid.renewed")) }
            case .expired: lines.append(texts.text("expired", ["end": texts.time(result.claims!.expiresAt)]))
            case .noPaidPeriod: lines.append(texts.text("no_paid_period"))
            case .presentationRequired: lines.append(texts.text("presentation_required"))
            case .revoked: lines.append(texts.text("revoked"))
            case .invalid, .cannotConfirm: lines.append(texts.text("invalid", ["reason": texts.text("reason." + result.verdict.rawValue)]))
            }
            return lines
        }
    }

    /// The verdict's detail in the service's words (for JSON and logs), nil for VALID.
    static func detail(_ verdict: CounterVerdict) -> String? {
        switch verdict.outcome {
        case .cannotConfirm(let reason): return reason.description
        case .card(let result): return verdict.isValid ? nil : "\(result.verdict.summary): \(result.detail)"
        }
    }

    /// Arabic lines begin with a right-to-left mark, so a terminal that lays out bidirectional text sets them
    /// right to left; one that does not shows them unchanged.
    private func directed(_ line: String) -> String {
        texts.language.isRightToLeft ? "\u{200F}" + line : line
    }

    /// Green for VALID, red for a refusal, amber for CANNOT CONFIRM; bold and reversed, large on a terminal.
    private func paint(_ text: String, _ word: Word) -> String {
        guard colour else { return text }
        let code = word == .valid ? "42;30" : word == .cannotConfirm || word == .presentationRequired ? "43;30" : "41;97"
        return "\u{1B}[1;\(code)m\(text)\u{1B}[0m"
    }

    static func printChanges(_ changes: CounterSync.Changes) {
        var lines: [String] = []
        if !changes.keysAdded.isEmpty { lines.append("keys added: \(changes.keysAdded.joined(separator: ", "))") }
        if !changes.keysRemoved.isEmpty { lines.append("keys removed: \(changes.keysRemoved.joined(separator: ", "))") }
        lines.append(
            "revocations: \(changes.whole ? "whole list" : "changes only"), \(changes.tokenIDsAdded) card(s) and \(changes.membersAdded) member(s) new, version \(changes.revocationVersion)"
        )
        lines.append("trust data valid until \(CardDates.display(changes.validUntil)) (Algiers)")
        if abs(changes.clockDrift) > 300 {
            lines.append(
                "warning: this device's clock is \(abs(changes.clockDrift) / 60) min \(changes.clockDrift > 0 ? "ahead of" : "behind") the service's; set it right"
            )
        }
        printNow(lines.joined(separator: "\n"))
    }

    /// The receipt of a sale, or why there is none; throws exit status 1 unless the sale was recorded.
    static func printSale(_ sale: SaleJournal.PendingSale, _ outcome: CounterSeller.Outcome, texts: CounterTexts) throws {
        let who =
            sale.name.map { texts.text("who", ["name": $0, "membership_id": sale.membershipID]) }
            ?? texts.text("who.no_name", ["membership_id": sale.membershipID])
        let common = ["who": who, "months": String(sale.months), "amount": String(sale.amountDZD)]
        switch outcome {
        case .recorded(let coverageEnd):
            let end = CardDates.parseExpiry(coverageEnd).map(texts.time) ?? coverageEnd
            printNow(texts.text("sold", common.merging(["end": end]) { $1 }))
        case .refused(let problem):
            printNow(texts.text("sale_refused", common.merging(["reason": texts.text(problem)]) { $1 }))
            throw ExitCode(1)
        case .pending(let problem):
            printNow(texts.text("sale_pending", common.merging(["problem": texts.text(problem)]) { $1 }))
            throw ExitCode(1)
        }
    }
}

/// `--lang`: the language the counter speaks to the shop.
struct CounterLanguageOptions: ParsableArguments {
    @Option(help: "The counter's language: en, fr or ar (default: from LANG, else en).")
    var lang: String?

    func validate() throws {
        if let lang, CounterTexts.Language(rawValue: lang) == nil { throw ValidationError("--lang must be en, fr or ar") }
    }

    var texts: CounterTexts {
        CounterTexts(
            lang.flatMap(CounterTexts.Language.init(rawValue:)) ?? CounterTexts.Language(locale: ProcessInfo.processInfo.environment["LANG"])
        )
    }
}
