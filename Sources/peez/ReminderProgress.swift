import Foundation
import Reminders

/// Shows a reminder run's progress on standard error: a bar with rate and time left on a terminal, a log
/// line every few seconds otherwise; then the summary.
final class ReminderProgress: @unchecked Sendable {
    private let terminal: Bool
    private let start = ContinuousClock.now
    private let lock = NSLock()
    private var lastLine = ContinuousClock.now

    init(terminal: Bool) {
        self.terminal = terminal
    }

    private var elapsed: Double {
        let (seconds, attoseconds) = (ContinuousClock.now - start).components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    func update(_ summary: ReminderRunner.Summary) {
        lock.withLock {
            let done = summary.settled
            let total = max(summary.open, done)
            let rate = Double(done) / max(elapsed, 0.001)
            let left = rate > 0 ? Double(total - done) / rate : 0
            if terminal {
                let width = 30
                let filled = total == 0 ? width : width * done / total
                let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
                printErrorInPlace(String(format: "[%@] %d/%d  %.0f/s  ETA %.0fs", bar, done, total, rate, left))
            } else if ContinuousClock.now - lastLine >= .seconds(5) {
                lastLine = ContinuousClock.now
                printError(String(format: "reminders: %d of %d settled, %.0f/s, about %.0fs left", done, total, rate, left))
            }
        }
    }

    func finish(_ summary: ReminderRunner.Summary) {
        if terminal { printErrorInPlace("") }
        let rate = summary.deliverySeconds > 0 ? Double(summary.settled) / summary.deliverySeconds : 0
        printError(
            String(
                format: "selection: %d reminder(s) recorded in %.2f s; delivery: %d settled in %.2f s (%.0f/s)",
                summary.due,
                summary.selectionSeconds,
                summary.settled,
                summary.deliverySeconds,
                rate
            )
        )
        printError(
            """
            reminders: \(summary.due) newly due, \(summary.open) open at the start; delivered \(summary.delivered), \
            failed \(summary.failed), unknown \(summary.unknown), superseded \(summary.superseded), exhausted \(summary.exhausted), \
            retrying later \(summary.retrying); \(summary.leftOpen) still open\(summary.heldByOtherRuns > 0 ? ", \(summary.heldByOtherRuns) being delivered by another run" : "")\(summary.settledByOtherRuns > 0 ? ", \(summary.settledByOtherRuns) settled by another run" : ""); \(String(format: "%.1f", elapsed)) s
            """
        )
    }

    private func printErrorInPlace(_ text: String) {
        FileHandle.standardError.write(Data(("\r\u{1B}[2K" + text).utf8))
    }
}
