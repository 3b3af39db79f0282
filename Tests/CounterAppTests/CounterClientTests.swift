import CounterApp
import Foundation
import TestSupport
import Testing

/// The counter's client against servers written in the test, each giving one answer.
@Suite("Counter client")
struct CounterClientTests {
    @Test func aSaleAnswered201WithoutItsCoverageEndIsNotReportedSoldButSentAgain() async throws {
        for body in ["{\"ok\": true}", "not json", "{\"coverage_end\": \"\"}"] {
            let server = try OneAnswerServer(
                answer:
                    "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
            )
            let client = try CounterClient(server: "http://127.0.0.1:\(server.port)", secret: "peez_vendor_test")
            await #expect(throws: CounterClientError.self, "a 201 whose body says no coverage end: \(body)") {
                _ = try await client.sell(membershipID: "PEEZ-20251103-00001", months: 1, amountDZD: 300, key: UUID().uuidString)
            }
        }
    }
}
