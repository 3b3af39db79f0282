import Foundation
import PeezBasics
import TestSupport

/// The faults of a run, drawn from its seed, every one to three seconds while the clients keep sending: an
/// instance killed with SIGKILL and started again a moment later; an instance's wall clock stepped up to 20 s
/// either way from the machine's (or back to it); on PostgreSQL also the database crashed (every process quits
/// at once) or stopped as an administrator stops it, and started again.
struct Faults: Sendable {
    let seed: UInt64
    let deployment: Deployment
    let instances: [ServiceUnderTest]
    let history: History

    /// Injects faults until `deadline`; leaves everything running. Returns how many of each it injected.
    func inject(until deadline: ContinuousClock.Instant) async throws -> [String: Int] {
        var random = SplitMix64.stream(0xFA17, of: seed)
        var injected: [String: Int] = [:]
        while true {
            try await Task.sleep(for: .milliseconds(Int.random(in: 1_000...3_000, using: &random)))
            guard ContinuousClock.now < deadline else { return injected }
            let pause = Duration.milliseconds(Int.random(in: 50...800, using: &random))
            let pick = Int.random(in: 0..<(instances.count + 1 + (deployment.postgres == nil ? 0 : 2)), using: &random)
            if pick == instances.count {
                let instance = instances[Int.random(in: 0..<instances.count, using: &random)]
                let offset = Int.random(in: 0..<3, using: &random) == 0 ? 0 : Int.random(in: -20...20, using: &random)
                try await fault("clock of \(instance.name) stepped to \(offset) s", count: "clock step", value: String(offset), into: &injected) {
                    instance.stepClock(by: offset)
                }
            } else if pick < instances.count {
                let instance = instances[pick]
                try await fault("kill -9 \(instance.name)", count: "kill -9", into: &injected) { await instance.kill() }
                try await Task.sleep(for: pause)
                try await fault("restart \(instance.name)", into: &injected) { try await instance.start() }
            } else if let postgres = deployment.postgres {
                let crash = pick == instances.count + 1
                try await fault(
                    crash ? "PostgreSQL crashed" : "PostgreSQL stopped",
                    count: crash ? "database crash" : "database stop",
                    into: &injected
                ) {
                    try await Self.onItsOwnThread { crash ? try postgres.crash() : try postgres.stop() }
                }
                try await Task.sleep(for: pause)
                try await fault("PostgreSQL started", into: &injected) { try await Self.onItsOwnThread { try postgres.start() } }
            }
        }
    }

    private func fault(
        _ detail: String,
        count: String? = nil,
        value: String? = nil,
        into injected: inout [String: Int],
        _ body: () async throws -> Void
    ) async throws {
        let begun = history.now()
        try await body()
        if let count { injected[count, default: 0] += 1 }
        var entry = HistoryEntry(client: "nemesis", kind: .fault, invoked: begun, completed: history.now(), outcome: .ok, detail: detail)
        entry.value = value
        history.record(entry)
    }

    /// `pg_ctl` waits; it runs on a thread of its own, off the clients' threads.
    private static func onItsOwnThread(_ body: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            Thread { done.resume(with: Result { try body() }) }.start()
        }
    }
}
