import Foundation
public import Membership

/// Pushes pass updates: leases the passes whose member changed since their devices were last told, tells each
/// registered device through APNs, and settles each: done, or retried later with backoff (a dead device token
/// is forgotten). Several workers (instances) never push one update at once: a lease is held by one.
public struct WalletPushWorker: Sendable {
    let store: any WalletStore
    let push: @Sendable (String) async -> APNsClient.Outcome
    let clock: @Sendable () -> Int64
    let owner: String

    /// Seconds a lease lasts: a worker that dies leaves its updates to another after this.
    public static let leaseSeconds: Int64 = 60
    /// Passes leased at once.
    public static let batch = 100

    public init(store: any WalletStore, push: @escaping @Sendable (String) async -> APNsClient.Outcome, clock: @escaping @Sendable () -> Int64) {
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

    private func deliver(_ update: WalletUpdate) async throws {
        var gone: [String] = []
        var retry: String?
        for registration in update.registrations {
            switch await push(registration.pushToken) {
            case .delivered: break
            case .deviceGone: gone.append(registration.device)
            // A refusal for this service's own settings (a wrong topic or key) is not the device's fault: kept,
            // and tried again with backoff while the error is on record.
            case .refused(let reason), .retryLater(let reason): retry = reason
            }
        }
        try await store.settleWalletUpdate(
            update,
            owner: owner,
            retryAt: retry.map { _ in clock() + Self.backoff(attempts: update.attempts) },
            error: retry,
            goneDevices: gone
        )
    }
}
