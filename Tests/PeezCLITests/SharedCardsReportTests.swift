import Foundation
import PeezAPI
import Synchronization
import TestSupport
import Testing

/// `GET /v1/scans/shared` under the load a hostile vendor can make: thousands of scans of one card. The report
/// reads each card's scans once in time order, and on SQLite on a connection and thread of its own, so it holds
/// up no other request. On a real `peez serve`, SQLite and PostgreSQL.
@Suite("Shared-cards report under load")
struct SharedCardsReportTests {
    static let admin = "peez_admin_DEVELOPMENT_ONLY_not_a_secret"
    static let vendor = "peez_vendor_DEVELOPMENT_ONLY_not_a_secret"

    @Test(arguments: [false, true])
    func threeThousandScansOfOneCardAtTwoShopsNeitherStallTheReportNorHealth(postgres: Bool) async throws {
        if postgres && ProcessInfo.processInfo.environment["PEEZ_TEST_DATABASE_URL"] == nil { return }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let service = try await ServiceProcess(
            arguments: ["--development"] + (try ReminderCommandTests.ledger(folder, postgres: postgres)),
            port: TestPorts.unused()
        )
        defer { service.killHard() }
        try await service.waitUntilReady()
        let created = try await service.request(
            "POST",
            "/v1/vendors",
            secret: Self.admin,
            json: ["name": "Pressing Gambetta", "category": "pressing", "neighbourhood": "gambetta"]
        )
        let otherVendor = try #require(created.body["api_secret"] as? String, "\(created.body)")
        let second = Int64(Date().timeIntervalSince1970) - 60
        for secret in [Self.vendor, otherVendor] {
            let counter = UUID().uuidString.lowercased()
            for batch in 0..<6 {
                // The wire itself: a report's entries as a counter sends them.
                let entries: [[String: Any]] = (1...500).map { index in
                    [
                        "seq": batch * 500 + index, "at": second, "verdict": "valid", "member": "PEEZ-20251103-00001",
                        "token_id": "00000000000000ab", "offline": true, "trust_age": 60,
                    ]
                }
                let reply = try await service.request("POST", "/v1/counter/scans", secret: secret, json: ["counter_id": counter, "entries": entries])
                #expect(reply.status == 200 && reply.body["stored"] as? Int == 500, "\(reply.body)")
            }
        }
        // /health timed, each on a connection of its own read to its end (an answer may come in several reads),
        // first alone, then while reports run back to back.
        let port = service.port
        func timedHealth() async throws -> Duration {
            let start = ContinuousClock.now
            let probe = try RawConnection(port: port)
            probe.send("GET /health HTTP/1.1\r\nHost: peez\r\nConnection: close\r\n\r\n")
            let answer = await probe.readUntilClosed(within: .seconds(10))
            #expect(answer?.hasPrefix("HTTP/1.1 200") == true && answer?.hasSuffix(#""status":"ok"}"#) == true, "\(answer ?? "no answer")")
            return ContinuousClock.now - start
        }
        var alone: [Duration] = []
        for _ in 0..<20 { alone.append(try await timedHealth()) }
        let finished = Finished()
        let reports = Task {
            defer { finished.value.withLock { $0 = true } }
            var statuses: [Int] = []
            for _ in 0..<5 {
                let reply = try await service.request("GET", "/v1/scans/shared", secret: Self.admin, timeout: 60)
                statuses.append(reply.status)
                let cards = (try? JSONDecoder().decode(SharedCardsBody.self, from: reply.data))?.cards ?? []
                #expect(
                    cards.count == 1 && cards.first?.seconds_apart == 0 && cards.first?.token_id == "00000000000000ab",
                    "one card, its closest pair at two shops: \(reply.body)"
                )
            }
            return statuses
        }
        var latencies: [Duration] = []
        while latencies.count < 400 {
            latencies.append(try await timedHealth())
            if latencies.count >= 20, finished.value.withLock({ $0 }) { break }
        }
        #expect(try await reports.value == [200, 200, 200, 200, 200])
        // Under 50 ms on a quiet machine (the README's figures; `make bench-scans` measures it). A whole test
        // suite shares this machine's two cores (a fresh-clone CI run saw 66 ms with 17 ms alone), so the median is
        // held to 150 ms or four times the median alone, whichever is more. A server the report stalls made every
        // /health wait for the report (5.7 s): so at most one probe in fifty (two at least) may take over a second;
        // a single probe the whole suite's load delayed (2.1 s and 5.3 s were seen in full fresh-clone runs) is not
        // a stall.
        let during = latencies.sorted()
        let quiet = alone.sorted()
        let bound = max(.milliseconds(150), quiet[quiet.count / 2] * 4)
        #expect(during[during.count / 2] < bound, "median /health \(during[during.count / 2]) while reports ran, \(quiet[quiet.count / 2]) alone")
        let slow = during.filter { $0 > .seconds(1) }
        #expect(
            slow.count <= max(2, during.count / 50),
            "\(slow.count) of \(during.count) /health probes took over a second while reports ran: \(slow)"
        )
    }
}

final class Finished: Sendable {
    let value = Mutex(false)
}
