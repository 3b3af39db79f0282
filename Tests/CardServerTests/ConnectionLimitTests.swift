import CardServer
import Foundation
import HummingbirdTesting
import TestSupport
import Testing

/// Slow and idle clients, on a real socket: each phase of a connection has its deadline.
/// Each test fails on a server without the limit (the connection stays open). The connection cap is tested on a
/// real `peez serve` process (`ConnectionCapTests`): Hummingbird's test server drops it.
@Suite("Connection limits")
struct ConnectionLimitTests {
    static let short = ConnectionLimits(idleTimeout: .seconds(1), headerTimeout: .seconds(1), bodyTimeout: .seconds(1), maxConnections: 512)
    static let health = "GET /health HTTP/1.1\r\nHost: peez\r\n\r\n"

    @Test func anIdleConnectionIsClosedAfterTheIdleTimeoutAndAnsweredRequestsKeepItAlive() async throws {
        // Eight seconds: long enough that a test machine busy with the whole suite sends and answers each request
        // before the connection idles out (three were not, once), short enough to watch it close.
        var limits = Self.short
        limits.idleTimeout = .seconds(8)
        try await ServerHarness.withLiveServer(limits: limits) { _, client in
            let port = try #require(client.port)
            let silent = try RawConnection(port: port)
            #expect(await silent.readUntilClosed(within: .seconds(30)) == "", "a connection that never sends is closed, unanswered")

            let kept = try RawConnection(port: port)
            for _ in 0..<3 {
                kept.send(Self.health)
                #expect(await kept.readResponse(within: .seconds(7))?.hasPrefix("HTTP/1.1 200") == true, "answered requests keep it open")
            }
            #expect(await kept.readUntilClosed(within: .seconds(30)) == "", "once idle, it closes without another answer")
        }
    }

    @Test func headersThatNeverEndAreAnswered408EvenWhileBytesKeepComing() async throws {
        try await ServerHarness.withLiveServer(limits: Self.short) { _, client in
            let connection = try RawConnection(port: try #require(client.port))
            connection.send("GET /health HTTP/1.1\r\nHost: peez\r\n")
            let start = ContinuousClock.now
            // A header line every 200 ms: each byte would reset an idle timer, never the header deadline.
            var index = 0
            while ContinuousClock.now - start < .seconds(8), connection.send("X-Slow-\(index): x\r\n") {
                index += 1
                try await Task.sleep(for: .milliseconds(200))
            }
            let answer = await connection.readUntilClosed(within: .seconds(5))
            #expect(ContinuousClock.now - start < .seconds(8), "the server cut the trickle off")
            #expect(answer?.hasPrefix("HTTP/1.1 408") == true && answer?.contains(#""code":"request_timeout""#) == true, "\(answer ?? "still open")")
        }
    }

    @Test func aBodySentAByteAtATimeIsAnswered408AtTheBodyTimeout() async throws {
        try await ServerHarness.withLiveServer(limits: Self.short) { _, client in
            let connection = try RawConnection(port: try #require(client.port))
            connection.send(
                "POST /v1/verify HTTP/1.1\r\nHost: peez\r\nAuthorization: Bearer \(ServerHarness.vendorSecret)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 200\r\n\r\n"
            )
            let start = ContinuousClock.now
            while ContinuousClock.now - start < .seconds(8), connection.send(" ") {
                try await Task.sleep(for: .milliseconds(200))
            }
            let answer = await connection.readUntilClosed(within: .seconds(5))
            #expect(ContinuousClock.now - start < .seconds(8), "the server cut the trickle off")
            #expect(answer?.contains("408") == true, "\(answer ?? "still open")")
        }
    }
}
