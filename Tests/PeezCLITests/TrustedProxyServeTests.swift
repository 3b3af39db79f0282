import Foundation
import TestSupport
import Testing

/// `peez serve --trusted-proxies`: read like every other setting, a bad entry named with where it came from, and
/// a trusted proxy's keep-alive connections (many clients) not held to one client's idle share.
@Suite("peez serve behind a trusted proxy")
struct TrustedProxyServeTests {
    static let health = "GET /health HTTP/1.1\r\nHost: peez\r\n\r\n"

    @Test func theTrustedProxiesAreReadLikeEveryOtherSettingAndABadEntryIsNamed() async throws {
        let keys = ServeConfigurationTests.keys
        let printed = try await ProcessRunner.run(
            ["PEEZ_TRUSTED_PROXIES=127.0.0.1, ::1,10.0.0.0/8", PeezCommand.binary, "serve", "--development", "--print-config"] + keys
        )
        #expect(printed.status == 0, "\(printed.standardError)")
        #expect(printed.standardOutput.contains("PEEZ_TRUSTED_PROXIES=127.0.0.1, ::1,10.0.0.0/8  (environment)"), "\(printed.standardOutput)")
        let unset = try await ProcessRunner.run([PeezCommand.binary, "serve", "--development", "--print-config"] + keys)
        #expect(unset.standardOutput.contains("PEEZ_TRUSTED_PROXIES=  (not set)"), "none by default")
        let bad = try await ProcessRunner.run(
            [PeezCommand.binary, "serve", "--development", "--trusted-proxies", "127.0.0.1,localhost", "--print-config"] + keys
        )
        #expect(bad.status != 0)
        #expect(
            bad.standardError.contains(
                "PEEZ_TRUSTED_PROXIES (from the flag) must be IP addresses or CIDR ranges separated by commas, as 127.0.0.1,::1,10.0.0.0/8 ('localhost' is not an IP address or CIDR range; host names are not looked up: give the proxy's address), not 127.0.0.1,localhost"
            ),
            "\(bad.standardError)"
        )
        let bits = try await ProcessRunner.run(
            ["PEEZ_TRUSTED_PROXIES=10.0.0.1/8", PeezCommand.binary, "serve", "--development", "--print-config"] + keys
        )
        #expect(bits.standardError.contains("(from the environment)") && bits.standardError.contains("write the network, as 10.0.0.0/8"))
    }

    @Test func aTrustedProxyHoldsMoreIdleConnectionsThanOneClientMay() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let service = try ServiceProcess(
            arguments: [
                "--development", "--database", folder.file("ledger.sqlite"), "--max-idle-per-client", "4", "--trusted-proxies", "127.0.0.1",
                // Only the per-client share may close them: a loaded machine can hold the test past a minute's idle.
                "--idle-timeout", "3600",
            ],
            port: TestPorts.unused()
        )
        defer { service.killHard() }
        try await service.waitUntilReady()
        let (sockets, open) = try await ConnectionCapTests.idleConnections(10, to: service)
        #expect(open == Array(0..<10), "the proxy's connections all stay open (one client would keep four)")
        for socket in [sockets[0], sockets[9]] {
            socket.send(Self.health)
            #expect(await socket.readResponse(within: .seconds(30))?.hasPrefix("HTTP/1.1 200") == true)
        }
    }
}
