import Logging
public import Membership
import Synchronization

/// Drains a Wallet outbox for as long as it runs: leases what is due, delivers each update on a task of its own
/// (at most ``maxInFlight`` at once) and leases more as soon as there is room, so an update whose destination
/// cannot be reached (held up to its timeout) holds up no other. Wakes at each nudge of `signal`, else every second.
public enum OutboxDrain {
    /// Updates delivered at once.
    public static let maxInFlight = 256

    /// Runs until cancelled. Nothing is leased while `ready` is false (the database not yet migrated).
    public static func run(
        name: String,
        signal: WalletPushSignal,
        ready: @escaping @Sendable () -> Bool,
        lease: @escaping @Sendable (_ limit: Int) async throws -> [WalletUpdate],
        deliver: @escaping @Sendable (WalletUpdate) async throws -> Void
    ) async {
        let inFlight = InFlight()
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled {
                let room = maxInFlight - inFlight.count
                var full = false
                if ready(), room > 0 {
                    do {
                        let updates = try await lease(min(room, WalletPushWorker.batch))
                        for update in updates {
                            inFlight.add(1)
                            group.addTask {
                                defer { inFlight.add(-1) }
                                do { try await deliver(update) } catch { PushRecord.logger.warning("\(name) update not settled: \(error)") }
                            }
                        }
                        full = updates.count == min(room, WalletPushWorker.batch)
                    } catch {
                        PushRecord.logger.warning("\(name) outbox not read: \(error)")
                    }
                }
                // More may be due right away when the lease came back full; else wait for a change.
                if !full { await signal.wait(upTo: .seconds(1)) }
            }
        }
    }

    /// How many updates are being delivered.
    final class InFlight: Sendable {
        private let value = Mutex(0)
        var count: Int { value.withLock { $0 } }
        func add(_ delta: Int) { value.withLock { $0 += delta } }
    }
}
