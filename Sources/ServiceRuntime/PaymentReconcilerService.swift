public import CardServices
public import Logging
import Membership
public import ServiceLifecycle

/// Reads back, every ``interval``, the online payments whose checkout nobody has heard the end of (a webhook
/// that never came), as a service of `peez serve` once the database is migrated: each is settled by what the
/// gateway says, so no payment is lost and none sells twice. Each instance runs one; a payment claimed by one is
/// not read by another until its next check. With the gateway or the database away it says so once and tries
/// again each interval.
public struct PaymentReconcilerService: Service {
    let payments: PaymentService
    let ready: ReadyFlag
    let interval: Duration
    let logger: Logger
    /// Called once the service stops (closes the gateway's connections).
    let onStop: @Sendable () async -> Void

    public init(
        payments: PaymentService,
        ready: ReadyFlag,
        interval: Duration = .seconds(30),
        logger: Logger = Logger(label: "peez.payments"),
        onStop: @escaping @Sendable () async -> Void = {}
    ) {
        self.payments = payments
        self.ready = ready
        self.interval = interval
        self.logger = logger
        self.onStop = onStop
    }

    public func run() async throws {
        await runEvery(
            interval,
            once: ready,
            logger: logger,
            failed: { "payments could not be read back; tried again shortly: \($0)" },
            recovered: "payments are read back again",
            work: {
                let summary = try await payments.reconcileDue()
                if summary.checked > 0 {
                    let outcomes = summary.outcomes.map { "\($0.value) \($0.key.rawValue)" }.sorted().joined(separator: ", ")
                    logger.info("payments read back from the gateway: \(summary.checked) (\(outcomes))")
                }
                for error in summary.errors { logger.warning("a payment could not be read back, tried again later: \(error)") }
            }
        )
        await onStop()
    }
}
