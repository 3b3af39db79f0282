import CardToken
import Foundation
import Membership
import PeezAPI
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

    /// The verdict as `POST /v1/verify` answers it: the same type (PeezAPI's ``VerifyBody``), so a program reads
    /// the command line's and the service's answers alike.
    func jsonLine(_ result: VerificationResult) -> String {
        var body = VerifyBody(verdict: result.verdict.rawValue, detail: result.detail.isEmpty ? nil : result.detail, kid: result.keyID?.hex)
        if let claims = result.claims {
            (body.sub, body.name, body.exp, body.iat, body.cti) = (claims.subject, claims.name, claims.expiresAt, claims.issuedAt, claims.tokenID.hex)
        }
        body.step = result.step
        body.presented_at = result.presentedAt
        do {
            return String(decoding: try APIJSON.encode(body), as: UTF8.self)
        } catch {
            preconditionFailure("a verdict of text and numbers always encodes: \(error)")
        }
    }
}
