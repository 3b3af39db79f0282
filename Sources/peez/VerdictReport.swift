import CardToken
import Foundation
import Membership
import PeezBasics

/// Prints verdicts for a person (one readable line) or for a program (one JSON object per line).
struct VerdictReport {
    var json: Bool

    func write(_ result: VerificationResult, now: Int64) {
        FileHandle.standardOutput.write(Data((line(result, now: now) + "\n").utf8))
    }

    /// The answer for one token, without its line end; `file` names the image it was found in.
    func line(_ result: VerificationResult, file: String? = nil, now: Int64) -> String {
        guard let file else { return json ? jsonLine(result) : humanLine(result, now: now) }
        return json
            ? "{\(JSONText.string("file")): \(JSONText.string(file)), " + jsonLine(result).dropFirst()
            : "\(file): " + humanLine(result, now: now)
    }

    func humanLine(_ result: VerificationResult, now: Int64) -> String {
        var parts = [result.verdict.summary]
        if let claims = result.claims {
            parts.append(claims.subject)
            if let name = claims.name { parts.append(name) }
            parts.append("expires \(CardDates.display(claims.expiresAt)) (Algiers)")
            // Days left only for a card that counts: an expired or revoked one has none.
            if result.verdict == .valid, claims.expiresAt > now {
                parts.append("\(CoverageSchedule.daysLeft(until: claims.expiresAt, now: now)) day(s) left")
            }
        }
        if let presentedAt = result.presentedAt, result.verdict == .valid {
            parts.append("presented from the phone \(max(0, now - presentedAt)) s ago")
        }
        if result.verdict != .valid && !result.detail.isEmpty {
            parts.append("[\(result.verdict.rawValue): \(result.detail)]")
        }
        return parts.joined(separator: "  ")
    }

    func jsonLine(_ result: VerificationResult) -> String {
        var fields: [(String, String)] = [("verdict", JSONText.string(result.verdict.rawValue))]
        if let claims = result.claims {
            fields.append(("sub", JSONText.string(claims.subject)))
            fields.append(("name", claims.name.map(JSONText.string) ?? "null"))
            fields.append(("exp", String(claims.expiresAt)))
            fields.append(("iat", String(claims.issuedAt)))
            fields.append(("cti", JSONText.string(claims.tokenID.hex)))
        }
        if let presentedAt = result.presentedAt { fields.append(("presented_at", String(presentedAt))) }
        if let keyID = result.keyID { fields.append(("kid", JSONText.string(keyID.hex))) }
        if let step = result.step { fields.append(("step", String(step))) }
        if !result.detail.isEmpty { fields.append(("detail", JSONText.string(result.detail))) }
        return "{" + fields.map { "\(JSONText.string($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
    }
}
