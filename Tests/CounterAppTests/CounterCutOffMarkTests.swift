import CounterApp
import Foundation
import TestSupport
import Testing

/// The cut-off kept in a counter's folder: what it forgets, that a damaged mark still cuts the counter off, and that
/// only the service's refusal of the counter's own credential counts as one.
@Suite("Counter cut-off mark")
struct CounterCutOffMarkTests {
    @Test func onlyTheServicesRefusalOfTheCountersOwnCredentialCutsItOff() {
        #expect(CounterProblem("service.credential_revoked").refusesThisDevice)
        #expect(CounterProblem("service.credential_expired").refusesThisDevice)
        for other in [
            "problem.unreachable", "problem.certificate", "problem.status", "service.unauthenticated", "service.forbidden", "service.not_found",
        ] {
            #expect(!CounterProblem(other).refusesThisDevice, "\(other) is no cut-off")
        }
        #expect(CounterProblem.deviceRefusals == ["service.credential_revoked", "service.credential_expired"])
    }

    @Test func forgettingLeavesNoSecretTrustDataOrScanLogAndIsSafeToRunAgain() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = CounterStore(folder: folder.path)
        try store.saveSecret("peez_vendor_example")
        for name in ["state.json", "state.previous.json", "scans.log", "scans.log.head", "scans.reported"] {
            try Data("x".utf8).write(to: URL(fileURLWithPath: folder.file(name)))
        }
        _ = try store.counterID()
        let mark = CounterCutOff(at: 1_795_100_000, reason: "service.credential_revoked", detail: "revoked")
        try store.forget(after: mark, now: mark.at)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        #expect(try store.savedSecret() == nil && !store.isEnrolled)
        try store.forget(after: mark, now: mark.at)
    }

    @Test func aDamagedMarkStillCutsTheCounterOffAndOnlyEnrolmentClearsIt() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = CounterStore(folder: folder.path)
        #expect(store.cutOff() == nil)
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: folder.file("cut-off.json")))
        let mark = try #require(store.cutOff(), "a mark that does not read is still a cut-off")
        #expect(mark.reason == "service.credential_revoked" && mark.at > 0)
        try store.clearCutOff()
        #expect(store.cutOff() == nil)
    }
}
