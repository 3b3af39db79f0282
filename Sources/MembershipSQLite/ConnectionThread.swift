import Foundation
import MembershipSQL
import Synchronization

/// A thread of its own for one SQLite connection, as a task executor: the work given to ``withConnection(_:)``
/// runs there, its statements inline, while the task's caller waits without holding a thread.
///
/// SQLite's calls block (a commit waits for its fsync, a report may scan for seconds), and Swift's cooperative
/// pool has one thread per core: such a statement run inline would hold a thread that every request, `/health`
/// included, needs. Each connection is used by one task at a time (the database's locks see to that), so one
/// thread a connection never makes a statement wait for another connection's.
///
/// A ``niceness`` above zero lowers the thread's scheduling weight (Linux schedules each thread on its own nice
/// value): the report connection's thread runs at 10, so a report scanning for seconds takes the cores only when
/// requests leave them idle. The thread ends once the last reference to this object is gone and the work handed
/// over has run.
final class ConnectionThread: TaskExecutor {
    private let connection: SQLiteConnection
    private let jobs: Jobs

    init(_ connection: SQLiteConnection, name: String, niceness: Int32 = 0) {
        let jobs = Jobs()
        self.connection = connection
        self.jobs = jobs
        let thread = Thread {
            Self.nameCurrentThread(name)
            // On Linux the nice value is a thread's own: 0 names the calling thread (setpriority(2), NOTES).
            if niceness != 0 { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness) }
            jobs.runUntilStopped()
        }
        thread.start()
    }

    deinit {
        jobs.stop()
    }

    /// Gives the calling thread the name `ps -L`, `top -H` and /proc show (its first 15 bytes); a new thread
    /// would otherwise carry the name of the thread that started it.
    private static func nameCurrentThread(_ name: String) {
        let file = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard file >= 0 else { return }
        defer { close(file) }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
    }

    /// Runs `body` with the connection on this thread: its statements, and every await in it that needs no
    /// other executor, run here without handing anything to another thread (SE-0417's task executor preference).
    func withConnection<T: Sendable>(_ body: (SQLiteConnection) async throws -> T) async throws -> T {
        try await withTaskExecutorPreference(self) { try await body(connection) }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.append { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
    }

    /// The work waiting for the thread, and the signal that wakes it.
    private final class Jobs: Sendable {
        private let waiting = Mutex<(jobs: [@Sendable () -> Void], stopped: Bool)>(([], false))
        private let ready = DispatchSemaphore(value: 0)

        func append(_ job: @escaping @Sendable () -> Void) {
            waiting.withLock { $0.jobs.append(job) }
            ready.signal()
        }

        func stop() {
            waiting.withLock { $0.stopped = true }
            ready.signal()
        }

        /// Runs what was handed over, in order, sleeping while there is nothing; returns once stopped and done.
        func runUntilStopped() {
            while true {
                ready.wait()
                let (batch, stopped) = waiting.withLock { state in
                    defer { state.jobs.removeAll(keepingCapacity: true) }
                    return (state.jobs, state.stopped)
                }
                for job in batch { job() }
                if stopped { return }
            }
        }
    }
}
