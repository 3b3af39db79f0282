import CardCrypto
import CardWire
import CounterApp
import Foundation
import Membership
import TestSupport
import Testing

/// The shared counter vectors (`Fixtures/vectors/counter-vectors.json`: the scan log's entries and chain, the clock
/// and staleness checks, the sale journal's own renewals), as `peez counter` follows them on real files; the web
/// counter runs the same file in Chromium. And the rules file both counters read, held to the service's copies.
@Suite("Counter vectors")
struct CounterVectorTests {
    struct Vectors: Decodable {
        struct Rules: Decodable, Equatable {
            var monthly_price_dzd: Int
            var months_sold: [Int]
            var clock_tolerance: Int64
            var trust_warning_age: Int64
            var time_range: [Int64]
            var scan_report_batch: Int
            var scan_log_genesis: String
            var sync_every: Int
            var device_refusals: [String]
        }
        struct Scan: Decodable {
            var now: Int64
            var verdict: String
            var member: String?
            var token_id: String?
            var presented_at: Int64?
            var offline: Bool
        }
        struct LogCase: Decodable {
            struct Link: Decodable {
                var json: String
                var hash: String
            }
            var id: String
            var last_sync_at: Int64
            var newest_server_time: Int64
            var scans: [Scan]
            var expected: [Link]
        }
        struct Chain: Decodable {
            struct Record: Decodable {
                var seq: Int
                var hash: String
                var json: String
            }
            var id: String
            var records: [Record]
            var broken: Int?
        }
        struct ClockCase: Decodable {
            struct Expected: Decodable {
                struct Warning: Decodable, Equatable {
                    var kind: String
                    var hours: Int64
                }
                var cannot_confirm: String?
                var warnings: [Warning]
            }
            var id: String
            var description: String
            var now: Int64
            var last_sync_at: Int64
            var newest_server_time: Int64
            var valid_until: Int64
            var expected: Expected
        }
        struct SaleCase: Decodable {
            struct Sale: Decodable {
                var membership_id: String
                var at: Int64
                var status: String
                var coverage_end: String?
            }
            struct Renewal: Decodable, Equatable {
                var membership_id: String
                var renewed_at: Int64
                var paid_until: Int64
            }
            var id: String
            var sales: [Sale]
            var expected: [Renewal]
        }
        struct CutOffCase: Decodable {
            struct Sale: Decodable {
                var membership_id: String
                var at: Int64
                var status: String
                var refusal: String?
            }
            var id: String
            var description: String
            var sales: [Sale]
            /// The sales kept, their cash to give back: their places in `sales`.
            var expected: [Int]
        }
        var rules: Rules
        var scan_log: [LogCase]
        var chains: [Chain]
        var clock: [ClockCase]
        var sales: [SaleCase]
        var cut_off: [CutOffCase]
    }

    static let vectors: Vectors = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/vectors/counter-vectors.json")
        return try! JSONDecoder().decode(Vectors.self, from: Data(contentsOf: url))
    }()

    @Test func theRulesBothCountersReadAreTheServicesRules() {
        let rules = CounterRules.shared
        let file = Self.vectors.rules
        #expect(
            [rules.monthlyPriceDZD, rules.scanReportBatch, rules.syncEvery] == [file.monthly_price_dzd, file.scan_report_batch, file.sync_every]
                && rules.monthsSold == file.months_sold && rules.timeRange == file.time_range && rules.scanLogGenesis == file.scan_log_genesis
                && [rules.clockTolerance, rules.trustWarningAge] == [file.clock_tolerance, file.trust_warning_age]
                && rules.deviceRefusals == file.device_refusals,
            "the vectors were made from the rules file as it is"
        )
        // The service judges what the counters send by its own copies: they must be the same rules.
        #expect(rules.monthlyPriceDZD == Pricing.monthlyPriceDZD && rules.monthsSold == Array(Pricing.allowedMonths))
        #expect(rules.timeRange == [ScanLogEntry.timeRange.lowerBound, ScanLogEntry.timeRange.upperBound])
        #expect(rules.scanReportBatch == CounterScan.maxPerReport)
        #expect(CounterVerdict.clockTolerance == rules.clockTolerance && CounterVerdict.warningAge == rules.trustWarningAge)
        #expect(rules.developmentKeyID == DevelopmentKey.keyID, "both counters refuse the key the service refuses")
    }

    @Test func everyScanIsLoggedAndChainedAsTheVectorsSay() throws {
        #expect(Self.vectors.scan_log.count >= 7)
        for vector in Self.vectors.scan_log {
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let log = ScanLog(path: folder.file("scans.log"))
            let state = CounterState(
                server: "https://cards.peez.dz",
                anchorKeys: [],
                bundles: [],
                newestServerTime: vector.newest_server_time,
                lastSyncAt: vector.last_sync_at
            )
            for scan in vector.scans {
                try log.append(
                    deviceTime: scan.now,
                    verdict: scan.verdict,
                    member: scan.member,
                    tokenID: scan.token_id,
                    presentedAt: scan.presented_at,
                    offline: scan.offline,
                    state: state
                )
            }
            let lines = try String(contentsOfFile: log.path, encoding: .utf8).split(separator: "\n").map(String.init)
            let written = lines.map { $0.split(separator: " ", maxSplits: 1).map(String.init) }.map { (hash: $0[0], json: $0[1]) }
            #expect(written.map(\.json) == vector.expected.map(\.json), "\(vector.id): the entries' JSON")
            #expect(written.map(\.hash) == vector.expected.map(\.hash), "\(vector.id): the chain")
        }
    }

    @Test func aChainIsBrokenWhereTheVectorsSay() throws {
        for vector in Self.vectors.chains {
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let log = ScanLog(path: folder.file("scans.log"))
            try vector.records.map { "\($0.hash) \($0.json)\n" }.joined().write(toFile: log.path, atomically: true, encoding: .utf8)
            try "\(vector.records.count) \(vector.records.last?.hash ?? "")\n".write(toFile: log.path + ".head", atomically: true, encoding: .utf8)
            let integrity = try log.read().integrity
            if let broken = vector.broken {
                guard case .broken(let line, _) = integrity else {
                    Issue.record("\(vector.id): the chain checks, but breaks at \(broken)")
                    continue
                }
                #expect(line == broken, "\(vector.id)")
            } else {
                #expect(integrity == .intact(entries: vector.records.count), "\(vector.id)")
            }
        }
    }

    @Test func theClockAndTheTrustDataDecideAsTheVectorsSay() throws {
        let key = try Ed25519PrivateKey.generate().publicKey
        let keys = try KeySetDocument(current: key, retired: []).keys
        for vector in Self.vectors.clock {
            let bundle = CounterBundle(
                issuedAt: vector.newest_server_time,
                validUntil: vector.valid_until,
                keys: keys,
                revocations: RevocationListDocument(version: 0, tokenIDs: [], members: [:])
            )
            let state = CounterState(
                server: "https://cards.peez.dz",
                anchorKeys: keys,
                bundles: [],
                newestServerTime: vector.newest_server_time,
                lastSyncAt: vector.last_sync_at
            )
            let verdict = CounterVerdict.judge(Array("PEEZ1:NOTACARD".utf8), trust: try CounterTrust(whole: bundle), state: state, now: vector.now)
            var cannotConfirm: String?
            if case .cannotConfirm(let reason) = verdict.outcome {
                switch reason {
                case .clockBehind: cannotConfirm = "clock_behind"
                case .trustExpired: cannotConfirm = "trust_expired"
                default: cannotConfirm = "\(reason)"
                }
            }
            #expect(cannotConfirm == vector.expected.cannot_confirm, "\(vector.id): \(vector.description)")
            let warnings = verdict.warnings.compactMap { warning -> Vectors.ClockCase.Expected.Warning? in
                if case .trustAge(let hours) = warning { return .init(kind: "trust_age", hours: hours) }
                return nil
            }
            #expect(warnings == vector.expected.warnings, "\(vector.id): \(vector.description)")
        }
    }

    @Test func aCountersOwnConfirmedSalesCountAsTheVectorsSay() throws {
        for vector in Self.vectors.sales {
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let journal = SaleJournal(path: folder.file("sales.journal"))
            for sale in vector.sales {
                let begun = try journal.begin(membershipID: sale.membership_id, name: nil, months: 1, amountDZD: 300, now: sale.at)
                switch sale.status {
                case "confirmed": try journal.finish(key: begun.key, confirmedWith: sale.coverage_end, now: sale.at + 1)
                case "refused": try journal.finish(key: begun.key, refusedBecause: "refused", now: sale.at + 1)
                default: break
                }
            }
            let empty = CounterBundle(
                issuedAt: 1_795_000_000,
                validUntil: 1_795_086_400,
                keys: [],
                revocations: RevocationListDocument(version: 0, tokenIDs: [], members: [:])
            )
            let counted = try CounterTrust(whole: empty).adding(ownSales: try journal.ownRenewals()).renewalsByMember.values
                .map { Vectors.SaleCase.Renewal(membership_id: $0.membershipID, renewed_at: $0.renewedAt, paid_until: $0.paidUntil) }
                .sorted { $0.membership_id < $1.membership_id }
            #expect(counted == vector.expected, "\(vector.id)")
        }
    }

    @Test func aCutOffKeepsOnlyTheSalesWhoseCashGoesBackAsTheVectorsSay() throws {
        #expect(Self.vectors.cut_off.count >= 4)
        for vector in Self.vectors.cut_off {
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let store = CounterStore(folder: folder.path)
            let journal = store.saleJournal
            var keys: [String] = []
            for (index, sale) in vector.sales.enumerated() {
                let begun = try journal.begin(membershipID: sale.membership_id, name: "Member \(index)", months: 1, amountDZD: 300, now: sale.at)
                keys.append(begun.key)
                switch sale.status {
                case "confirmed": try journal.finish(key: begun.key, confirmedWith: "2027-01-01T00:00:00Z", now: sale.at + 1)
                case "refused":
                    try journal.finish(key: begun.key, refusedBecause: "refused", problem: "service.\(sale.refusal ?? "")", now: sale.at + 1)
                default: break
                }
            }
            let mark = CounterCutOff(at: 1_795_100_000, reason: "service.credential_revoked", detail: "revoked")
            try store.forget(after: mark, now: mark.at)
            let kept = try journal.salesToGiveBack().map(\.key)
            #expect(kept == vector.expected.map { keys[$0] }, "\(vector.id): \(vector.description)")
            #expect(Set(try journal.records().map(\.key)) == Set(kept), "\(vector.id): nothing else stays in the journal")
            #expect(try journal.pending().isEmpty, "\(vector.id): no sale kept is sent again, whatever the next enrolment")
        }
    }
}
