import CoreMetrics
import Foundation
public import Membership
import PeezBasics

/// Runs the reminders once a day at a set Algiers time, for as long as the task runs (inside `peez serve`),
/// and counts every outcome in the service's metrics (`peez_reminders_total{outcome=…}`).
public struct DailyReminders: Sendable {
    /// Seconds after Algiers midnight.
    public let secondOfDay: Int64
    public let makeRunner: @Sendable () throws -> ReminderRunner
    public let log: @Sendable (String) -> Void

    /// `time` is `HH:MM` (Algiers).
    public init(at time: String, log: @escaping @Sendable (String) -> Void, makeRunner: @escaping @Sendable () throws -> ReminderRunner) throws {
        let parts = time.split(separator: ":")
        guard parts.count == 2, let hour = Int64(parts[0]), let minute = Int64(parts[1]), (0..<24).contains(hour), (0..<60).contains(minute),
            parts[1].count == 2
        else {
            throw ReminderSinkError("the reminder time must be HH:MM (Algiers), e.g. 09:30, not '\(time)'")
        }
        secondOfDay = hour * 3_600 + minute * 60
        self.makeRunner = makeRunner
        self.log = log
    }

    /// The next run's time after `now`.
    public func nextRun(after now: Int64) -> Int64 {
        let midnight = AlgiersCalendar.startOfDay(String(AlgiersCalendar.iso8601(now).prefix(10)))!
        let today = midnight + secondOfDay
        return today > now ? today : today + 86_400
    }

    /// Waits for each day's time and runs; ends when the task is cancelled. A failed run is logged and the next
    /// day's run goes ahead (reminders left open are delivered then).
    public func run(clock: WallClock) async {
        while !Task.isCancelled {
            let wait = nextRun(after: clock()) - clock()
            do {
                try await Task.sleep(for: .seconds(wait))
            } catch {
                return
            }
            do {
                let runner = try makeRunner()
                let summary: ReminderRunner.Summary
                do {
                    summary = try await runner.run()
                    await runner.sink.close()
                } catch {
                    await runner.sink.close()
                    throw error
                }
                Self.count(summary)
                log(
                    "reminders: \(summary.due) newly due; delivered \(summary.delivered), failed \(summary.failed), unknown \(summary.unknown), "
                        + "superseded \(summary.superseded), exhausted \(summary.exhausted), \(summary.leftOpen) still open"
                )
            } catch {
                log("the reminder run failed: \(error); the next run delivers what is left")
            }
        }
    }

    static func count(_ summary: ReminderRunner.Summary) {
        for (outcome, value) in [
            ("due", summary.due), ("delivered", summary.delivered), ("failed", summary.failed), ("unknown", summary.unknown),
            ("superseded", summary.superseded), ("exhausted", summary.exhausted),
        ] where value > 0 {
            Counter(label: "peez_reminders_total", dimensions: [("outcome", outcome)]).increment(by: value)
        }
    }
}
