import Logging
import ServiceLifecycle

/// Runs `work` every `interval` once `ready` is set, until the service group shuts down gracefully. A failure is
/// said once (`failed`), however often it repeats, and the recovery once (`recovered`); the work is tried again
/// each interval.
func runEvery(
    _ interval: Duration,
    once ready: ReadyFlag,
    logger: Logger,
    failed: @escaping @Sendable (any Error) -> Logger.Message,
    recovered: Logger.Message,
    work: @escaping @Sendable () async throws -> Void
) async {
    await cancelWhenGracefulShutdown {
        var failing = false
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            guard ready.isSet, !Task.isCancelled else { continue }
            do {
                try await work()
                if failing { logger.info(recovered) }
                failing = false
            } catch {
                if !failing && !Task.isCancelled { logger.warning(failed(error)) }
                failing = true
            }
        }
    }
}
