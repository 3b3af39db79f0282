import Foundation
import Soak
import TestSupport
import Testing

/// The short form of `make soak`: fixed seeds, each a few shops selling with retries, the team cancelling, and
/// the service killed with SIGKILL every one to three seconds, checked against the ledger's guarantees.
@Suite("Soak under kill -9", .serialized)
struct SoakTests {
    static let seeds: [UInt64] = [1, 2]

    @Test(arguments: seeds)
    func aSeededRunUnderKillNineBreaksNoGuarantee(seed: UInt64) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let report = try await SoakRun(seed: seed, duration: .seconds(25), peez: PeezCommand.binary, folder: folder.file("run")).run()
        print(report.summary)
        #expect(report.violations.isEmpty, "\(report.summary)")
        #expect(report.kills >= 4, "the faults were injected")
        #expect(report.operations.filter { $0.kind == .sale && $0.outcome == .ok }.count >= 20, "sales were made")
    }
}
