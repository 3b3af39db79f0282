import Foundation
import TestSupport
import Testing

/// `peez serve --max-connections`: connections beyond the cap wait in the listen backlog, unanswered, until
/// one closes. (On a real process: Hummingbird's test server does not apply the cap.)
@Suite("Connection cap")
struct ConnectionCapTests {
    @Test func connectionsBeyondTheCapWaitUntilOneCloses() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let service = try ServiceProcess(arguments: ["--development", "--database", folder.file("ledger.sqlite"), "--max-connections", "2"],
                                         port: TestPorts.unused())
        defer { service.killHard() }
        try await service.waitUntilReady()
        let health = "GET /health HTTP/1.1\r\nHost: peez\r\n\r\n"
        // The readiness check's own connection may still hold one of the two places.
        var served: [RawConnection] = []
        var waiting: RawConnection?
        for _ in 0..<4 {
            let connection = try RawConnection(port: service.port)
            connection.send(health)
            if await connection.readResponse(within: .seconds(5)) != nil { served.append(connection) } else { waiting = connection; break }
        }
        let pending = try #require(waiting, "with at most 2 connections open, a fourth was still served")
        #expect((1...2).contains(served.count), "\(served.count) served before one had to wait")
        served.removeAll()
        #expect(await pending.readResponse(within: .seconds(10))?.hasPrefix("HTTP/1.1 200") == true, "it is served once one closes")
    }
}
