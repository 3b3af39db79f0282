import Foundation
import PeezBasics

/// The faults of a run, drawn from its seed: the service killed with SIGKILL every one to three seconds and
/// started again a moment later, while the clients keep sending.
struct Faults: Sendable {
    let seed: UInt64
    let service: ServiceUnderTest
    let history: History

    /// Kills and restarts the service until `deadline`; leaves it running. Returns how many times it was killed.
    func inject(until deadline: ContinuousClock.Instant) async throws -> Int {
        var random = SplitMix64.stream(0xFA17, of: seed)
        var kills = 0
        while true {
            try await Task.sleep(for: .milliseconds(Int.random(in: 1_000...3_000, using: &random)))
            guard ContinuousClock.now < deadline else { return kills }
            let down = history.now()
            await service.kill()
            kills += 1
            history.record(HistoryEntry(client: "nemesis", kind: .fault, invoked: down, completed: down, outcome: .ok, detail: "kill -9"))
            try await Task.sleep(for: .milliseconds(Int.random(in: 50...800, using: &random)))
            let starting = history.now()
            try await service.start()
            history.record(HistoryEntry(client: "nemesis", kind: .fault, invoked: starting, completed: history.now(), outcome: .ok, detail: "restart"))
        }
    }
}
