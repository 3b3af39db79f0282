public import CardServices
public import Membership
public import ServiceLifecycle
import WalletPass
public import WalletPush

/// One Wallet channel's outbox as a service of `peez serve` (Apple's pushes, or Google's object updates): it looks
/// for updates as soon as a request changed something (its signal) and every second besides (another instance's
/// changes, retries coming due), leases nothing until the database is migrated, and stops with the service group,
/// its client shut down. Each channel runs on its own, so neither waits for the other.
public struct WalletOutboxService: Service {
    let drain: @Sendable () async -> Void
    let shutdown: @Sendable () async throws -> Void

    public func run() async throws {
        await cancelWhenGracefulShutdown { await drain() }
        try? await shutdown()
    }

    /// Apple Wallet: pass updates pushed through APNs, from `store`'s outbox.
    public static func apple(
        store: any WalletStore,
        client: APNsClient,
        signal: WalletPushSignal,
        ready: ReadyFlag,
        clock: WallClock
    ) -> WalletOutboxService {
        let worker = WalletPushWorker(store: store, push: { await client.push(deviceToken: $0) }, clock: clock)
        return WalletOutboxService(drain: { await worker.run(signal: signal, ready: { ready.isSet }) }, shutdown: { try await client.shutdown() })
    }

    /// Google Wallet: each changed member's pass object sent through the Wallet API, from `store`'s outbox.
    public static func google(
        store: any WalletStore,
        service: GoogleWalletService,
        client: GoogleWalletClient,
        signal: WalletPushSignal,
        ready: ReadyFlag,
        clock: WallClock
    ) -> WalletOutboxService {
        let worker = GoogleWalletWorker(
            store: store,
            object: { try await service.object(memberUUID: $0) },
            update: { await client.update($0) },
            clock: clock
        )
        return WalletOutboxService(drain: { await worker.run(signal: signal, ready: { ready.isSet }) }, shutdown: { try await client.shutdown() })
    }
}
