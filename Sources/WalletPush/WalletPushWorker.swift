import Foundation
public import Membership

/// Pushes pass updates: leases the passes changed since all their devices were told, tells each device still
/// behind through APNs (all of a pass's devices at once, over HTTP/2's concurrent streams), and settles each
/// device: told, forgotten (a dead token), or left behind for a retry with backoff that pushes only to it. Several
/// workers (instances) never push one update at once: a lease is held by one. A pass has at most
/// ``WalletPassLimits/maxDevices`` devices and a push at most ``APNsClient/pushTimeout``, so a batch ends well
/// within its lease even when APNs cannot be reached.
public struct WalletPushWorker: Sendable {
    let store: any WalletStore
    let push: @Sendable (String) async -> PushResult
    let clock: WallClock
    let owner: String

    /// Seconds a lease lasts: a worker that dies leaves its updates to another after this.
    public static let leaseSeconds: Int64 = 60
    /// Passes leased at once.
    public static let batch = 100

    public init(store: any WalletStore, push: @escaping @Sendable (String) async -> PushResult, clock: WallClock) {
        self.store = store
        self.push = push
        self.clock = clock
        self.owner = UUID().uuidString
    }

    /// Seconds before the next attempt after `attempts` failed ones: 10 s doubling, at most an hour.
    public static func backoff(attempts: Int64) -> Int64 {
        min(3_600, 10 << min(attempts, 12))
    }

    /// Pushes every update due now; returns how many passes it settled.
    @discardableResult
    public func runOnce() async throws -> Int {
        var settled = 0
        while true {
            let updates = try await store.leaseWalletUpdates(owner: owner, now: clock(), leaseSeconds: Self.leaseSeconds, limit: Self.batch)
            guard !updates.isEmpty else { return settled }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for update in updates {
                    group.addTask { try await self.deliver(update) }
                }
                try await group.waitForAll()
            }
            settled += updates.count
        }
    }

    /// Pushes updates as they come due until cancelled (see ``OutboxDrain``).
    public func run(signal: WalletPushSignal, ready: @escaping @Sendable () -> Bool) async {
        await OutboxDrain.run(
            name: "Apple Wallet",
            signal: signal,
            ready: ready,
            lease: { limit in try await store.leaseWalletUpdates(owner: owner, now: clock(), leaseSeconds: Self.leaseSeconds, limit: limit) },
            deliver: { update in try await deliver(update) }
        )
    }

    private func deliver(_ update: WalletUpdate) async throws {
        let results = await withTaskGroup(of: (String, PushResult).self) { group in
            for registration in update.registrations {
                group.addTask { (registration.device, await push(registration.pushToken)) }
            }
            return await group.reduce(into: [(String, PushResult)]()) { $0.append($1) }
        }
        var outcome = WalletPushOutcome()
        var behind = 0
        for (device, result) in results {
            PushRecord.count(result, channel: "apple")
            switch result {
            case .delivered: outcome.told.append(device)
            case .gone: outcome.gone.append(device)
            case .refused(let reason), .retryLater(let reason):
                outcome.error = reason
                behind += 1
            }
        }
        if let reason = outcome.error {
            let retryIn = Self.backoff(attempts: update.attempts)
            outcome.retryAt = clock() + retryIn
            PushRecord.failed(channel: "Apple Wallet", member: update.member.lowercasedText, reason: reason, behind: behind, retryIn: retryIn)
        }
        try await store.settleWalletUpdate(update, owner: owner, outcome: outcome, now: clock())
    }
}
