import Foundation
import Membership
import Synchronization
import TestSupport
import Testing
import WalletPass

@testable import WalletPush

@Suite("APNs provider token lifetime")
struct APNsProviderTokenTests {
    @Test func theProviderTokenIsKeptFor50MinutesThenMadeAnew() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        _ = try await ProcessRunner.run([
            "openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", folder.file("k.p8"),
        ])
        let key = try APNsAuthenticationKey(pem: Array(try Data(contentsOf: URL(fileURLWithPath: folder.file("k.p8")))), keyID: "K1", teamID: "T1")
        let now = Mutex<Int64>(1_795_000_000)
        let client = try APNsClient(
            server: "https://127.0.0.1:9",
            key: key,
            topic: "pass.test",
            certificateAuthority: nil,
            clock: WallClock { now.withLock { $0 } }
        )
        let first = try client.providerToken()
        now.withLock { $0 += APNsClient.tokenLifetime - 1 }
        #expect(try client.providerToken() == first, "kept while younger than 50 minutes")
        now.withLock { $0 += 1 }
        let second = try client.providerToken()
        #expect(second != first, "made anew at 50 minutes, before Apple's hour")
        try await client.shutdown()
    }
}
