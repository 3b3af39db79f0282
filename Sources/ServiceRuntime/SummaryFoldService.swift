public import Logging
public import ServiceLifecycle

/// Folds the changes that sales and cancellations append to the console's summaries into their days' rows, every
/// ``interval`` once the database is migrated, as a service of `peez serve`. Figures are exact whether it runs or
/// not: folding keeps what the console's readers sum small. With the database away it says so once, tries again
/// each interval, and says when it is back.
public struct SummaryFoldService: Service {
    let fold: @Sendable () async throws -> Int
    let ready: ReadyFlag
    let interval: Duration
    let logger: Logger

    /// Folds with `fold` (which returns how many changes it moved) every `interval` after `ready` is set.
    public init(
        fold: @escaping @Sendable () async throws -> Int,
        ready: ReadyFlag,
        interval: Duration = .seconds(2),
        logger: Logger = Logger(label: "peez.summaries")
    ) {
        self.fold = fold
        self.ready = ready
        self.interval = interval
        self.logger = logger
    }

    /// Batches folded in one go at most: a backlog is worked off over a few intervals, never in one long run.
    static let batchesPerInterval = 20

    public func run() async throws {
        await runEvery(
            interval,
            once: ready,
            logger: logger,
            failed: { "the console's summaries could not be folded; figures stay exact, tried again shortly: \($0)" },
            recovered: "the console's summaries are folded again",
            work: {
                var batches = 0
                while batches < Self.batchesPerInterval, try await fold() > 0 { batches += 1 }
            }
        )
    }
}
