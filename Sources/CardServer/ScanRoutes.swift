import CardServices
import CardToken
import Foundation
import Hummingbird
import Membership
import PeezAPI
import PeezBasics

/// Counters report their scan logs; admins see where a card was used and which cards two shops saw within
/// minutes of each other (a shared screenshot: one phone cannot be at two counters at once).
struct ScanRoutes {
    let cards: CardService
    var store: any MembershipStore { cards.store }

    /// A report of 500 scans is about 80 KB.
    static let maxReportBytes = 128 * 1024

    func register(on router: Router<ServerRequestContext>) {
        router.on("/v1/counter/scans", method: .post, use: report)
        router.on("/v1/scans", method: .get, use: list)
        router.on("/v1/scans/shared", method: .get, use: shared)
    }

    /// `POST /v1/counter/scans`: idempotent; a scan already reported (same vendor, counter and entry) is not stored again.
    @Sendable func report(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let credential = try context.require(.vendor)
        guard let vendorID = credential.vendorID else {
            throw APIError.forbidden("This vendor credential is not tied to a vendor.")
        }
        let now = cards.now()
        let report = try ScanReportRequest.report(from: try await JSONExchange.bodyBytes(request, context: context, limit: Self.maxReportBytes))
        var refused: [ScanReportAnswer.Refusal] = []
        var scans: [CounterScan] = []
        for entry in report.entries {
            if let reason = entry.refusal(serviceNow: now) {
                refused.append(.init(seq: entry.seq, reason: reason))
            } else {
                scans.append(CounterScan(entry, counterID: report.counterID))
            }
        }
        let stored = try await store.recordScans(scans, vendorID: vendorID, now: now)
        return try JSONExchange.response(
            ScanReportAnswer(received: report.entries.count, stored: stored, alreadyStored: scans.count - stored, refused: refused)
        )
    }

    /// `GET /v1/scans?membership_id=…&token_id=…&limit=…`: where cards were used, newest first.
    @Sendable func list(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try context.require(.admin)
        let query = request.uri.queryParameters
        let limit = try ActivationRoutes.limit(query.get("limit"))
        var problems: [String: String] = [:]
        let membershipID = query.get("membership_id")
        if let membershipID, !Member.isMembershipID(membershipID) { problems["membership_id"] = "must look like PEEZ-20251103-00002" }
        let tokenID = query.get("token_id")
        if let tokenID, !ScanLogEntry.isTokenID(tokenID) { problems["token_id"] = "must be a card's token id, 16 lowercase hex digits" }
        guard problems.isEmpty else {
            throw APIError(.unprocessableContent, code: "invalid_fields", "The query has invalid parameters.", fields: problems)
        }
        let scans = try await store.reportedScans(membershipID: membershipID, tokenID: tokenID, limit: limit)
        return try JSONExchange.response(ScanListBody(scans: scans.map(ReportedScanBody.init)))
    }

    /// `GET /v1/scans/shared?within=600&days=7&limit=100`: cards seen at two shops at most `within` seconds apart.
    @Sendable func shared(_ request: Request, context: ServerRequestContext) async throws -> Response {
        _ = try context.require(.admin)
        let query = request.uri.queryParameters
        let limit = try ActivationRoutes.limit(query.get("limit"))
        var problems: [String: String] = [:]
        let within = Self.wholeNumber(query.get("within"), default: 600, in: 1...86_400, "within", "seconds", &problems)
        let days = Self.wholeNumber(query.get("days"), default: 7, in: 1...90, "days", "days", &problems)
        guard problems.isEmpty else {
            throw APIError(.unprocessableContent, code: "invalid_fields", "The query has invalid parameters.", fields: problems)
        }
        let sightings = try await store.sharedCards(within: within, since: cards.now() - days * 86_400, limit: limit)
        return try JSONExchange.response(SharedCardsBody(within_seconds: within, days: days, cards: sightings.map(SharedCardBody.init)))
    }

    private static func wholeNumber(
        _ text: String?,
        default value: Int64,
        in range: ClosedRange<Int64>,
        _ name: String,
        _ unit: String,
        _ problems: inout [String: String]
    ) -> Int64 {
        guard let text else { return value }
        guard text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let number = Int64(text), range.contains(number) else {
            problems[name] = "must be a whole number of \(unit) from \(range.lowerBound) to \(range.upperBound)"
            return value
        }
        return number
    }
}

/// The body of a scan report, every field of every entry checked at once: first each field's kind (as the
/// API document gives it), then the values by ``ScanLogEntry/problems``, the rules the counter logs by.
enum ScanReportRequest {
    /// An entry's fields and their kinds, as the API document gives them.
    enum Entry: FieldRules {
        enum CodingKeys: String, CodingKey, CaseIterable { case seq, at, verdict, member, token_id, offline, trust_age, clock_wrong }
        static let fields: [CodingKeys: (kind: FieldKind, required: Bool)] = [
            .seq: (.integer, true), .at: (.integer, true), .verdict: (.oneOf(CounterScan.verdicts), true), .member: (.text, false),
            .token_id: (.text, false), .offline: (.boolean, true), .trust_age: (.integer, true), .clock_wrong: (.boolean, false),
        ]
    }

    /// The report in `bytes`: 400 when it is not a JSON object, 422 naming every field of every entry that is wrong.
    static func report(from bytes: [UInt8]) throws -> ScanReport {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw APIError.badRequest("The body is not a JSON object.")
        }
        var problems: [String: String] = [:]
        let counterID = (object["counter_id"] as? String).flatMap { UUID(strictText: $0) }
        if counterID == nil { problems["counter_id"] = "must be the counter's UUID" }
        let entries = object["entries"] as? [Any] ?? []
        if !(object["entries"] is [Any]) || !(1...CounterScan.maxPerReport).contains(entries.count) {
            problems["entries"] = "must be a list of 1 to \(CounterScan.maxPerReport) scan-log entries"
        }
        var decoded: [ScanLogEntry] = []
        for (index, value) in entries.prefix(CounterScan.maxPerReport).enumerated() {
            let name = "entries[\(index)]"
            guard let fields = value as? [String: Any] else {
                problems[name] = "must be an object"
                continue
            }
            // The kinds first; then the value rules on every field whose kind is right, so one answer names all.
            var entryProblems = Entry.problems(in: fields)
            let checked = CheckedFields<Entry.CodingKeys>(fields)
            let wellTyped = { (field: Entry.CodingKeys) in entryProblems[field.stringValue] == nil }
            let number = { (field: Entry.CodingKeys, fallback: Int64) in wellTyped(field) ? checked.integer(field) ?? fallback : fallback }
            let text = { (field: Entry.CodingKeys) in wellTyped(field) ? checked.text(field) : nil }
            let flag = { (field: Entry.CodingKeys) in wellTyped(field) ? checked.boolean(field) ?? false : false }
            let entry = ScanLogEntry(
                seq: Int(clamping: number(.seq, 1)),
                at: number(.at, ScanLogEntry.timeRange.lowerBound),
                verdict: text(.verdict) ?? CounterScan.verdicts[0],
                member: text(.member),
                tokenID: text(.token_id),
                offline: flag(.offline),
                trustAge: number(.trust_age, 0),
                clockWrong: flag(.clock_wrong)
            )
            entryProblems.merge(entry.problems) { kind, _ in kind }
            if entryProblems.isEmpty { decoded.append(entry) }
            for (field, problem) in entryProblems { problems["\(name).\(field)"] = problem }
        }
        guard problems.isEmpty, let counterID else {
            throw MembershipError(
                .invalidFields,
                problems.count == 1 ? "A field is missing or invalid." : "\(problems.count) fields are missing or invalid.",
                fields: problems
            )
        }
        return ScanReport(counterID: counterID, entries: decoded)
    }
}

struct ReportedScanBody: Codable {
    var vendor_id: String
    var vendor_name: String
    var counter_id: String
    var seq: Int64
    var scanned_at: String
    var verdict: String
    var membership_id: String?
    var token_id: String?
    var offline: Bool
    var trust_age_seconds: Int64
    var clock_wrong: Bool
    var received_at: String

    init(_ reported: ReportedScan) {
        let scan = reported.scan
        vendor_id = reported.vendorID.lowercasedText
        vendor_name = reported.vendorName
        counter_id = scan.counterID.lowercasedText
        seq = scan.seq
        scanned_at = AlgiersCalendar.iso8601(scan.scannedAt)
        verdict = scan.verdict
        membership_id = scan.membershipID
        token_id = scan.tokenID
        offline = scan.offline
        trust_age_seconds = scan.trustAge
        clock_wrong = scan.clockWrong
        received_at = AlgiersCalendar.iso8601(reported.receivedAt)
    }
}

struct ScanListBody: Codable {
    /// Newest first.
    var scans: [ReportedScanBody]
}

struct SharedCardBody: Codable {
    var token_id: String
    var membership_id: String?
    var seconds_apart: Int64
    var earlier: ReportedScanBody
    var later: ReportedScanBody

    init(_ sighting: SharedCardSighting) {
        token_id = sighting.earlier.scan.tokenID ?? ""
        membership_id = sighting.earlier.scan.membershipID
        seconds_apart = sighting.secondsApart
        earlier = ReportedScanBody(sighting.earlier)
        later = ReportedScanBody(sighting.later)
    }
}

struct SharedCardsBody: Codable {
    var within_seconds: Int64
    var days: Int64
    /// The closest pair of each card, the most recent first.
    var cards: [SharedCardBody]
}
