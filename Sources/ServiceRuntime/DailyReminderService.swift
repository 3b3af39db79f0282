public import Logging
public import Membership
public import Reminders
public import ServiceLifecycle

/// The daily reminder run as a service of `peez serve`, at an Algiers time, to a sink made afresh for each run; it
/// stops when the service group shuts down.
public struct DailyReminderService: Service {
    let daily: DailyReminders
    let clock: WallClock

    /// The run at `at` (HH:MM, Algiers) over `store`, to the sink `makeSink` makes; a wrong time is an error here.
    public init(
        at: String,
        store: any ReminderStore,
        makeSink: @escaping @Sendable () throws -> any ReminderSink,
        clock: WallClock,
        logger: Logger = Logger(label: "peez.reminders")
    ) throws {
        daily = try DailyReminders(
            at: at,
            log: { logger.info("\($0)") },
            makeRunner: { ReminderRunner(store: store, sink: try makeSink(), clock: clock) }
        )
        self.clock = clock
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown { await daily.run(clock: clock) }
    }
}
