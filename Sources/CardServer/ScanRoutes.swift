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
    let store: any ScanStore

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

    static func wholeNumber(
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
