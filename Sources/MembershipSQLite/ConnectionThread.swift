import Foundation
import MembershipSQL
import Synchronization

/// A thread of its own for one SQLite connection: the connection's statements run there, in the order they were
/// handed over, while the task that handed one over waits without holding a thread.
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
final class ConnectionThread: Sendable {
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

    /// Runs `work` with the connection on this thread and returns what it returned (or throws what it threw).
    func run<T: Sendable>(_ work: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            jobs.append { [connection] in continuation.resume(with: Result { try work(connection) }) }
        }
    }

    /// Runs one statement on this thread and returns its rows.
    func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try await run { connection in try connection.query(sql, binds) }
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
