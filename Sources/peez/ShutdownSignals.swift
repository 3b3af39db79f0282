import Foundation
import Logging
import ServiceLifecycle

/// SIGTERM and SIGINT for `peez serve`, received whichever thread the kernel delivers them to.
///
/// A signal sent to the process goes to any one of its threads that does not block it. Dispatch's signal
/// sources (which ServiceLifecycle's signal handling uses) read a `signalfd` on Linux, which sees only a signal
/// that is blocked where it is delivered, and the service's threads (NIO's event loops, Swift's task pool) do
/// not block it: a SIGTERM to the self-contained build was seen lost, the service running on. Here a real
/// handler, installed for the whole process, writes the signal's number to a pipe (all it does, which is safe
/// in a signal handler) and a thread of its own reads the pipe.
enum ShutdownSignals {
    /// Installs the handlers for `signals` and returns them as they arrive.
    static func watch(_ signals: [Int32]) throws -> AsyncStream<Int32> {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw ShutdownSignalsError(errno: errno) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }  // not inherited by programs the service starts
        _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)  // a full pipe drops a repeat rather than block the handler
        signalPipeWriteEnd = ends[1]
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signal in
                var byte = UInt8(truncatingIfNeeded: signal)
                _ = write(signalPipeWriteEnd, &byte, 1)
            }
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            guard sigaction(signal, &action, nil) == 0 else { throw ShutdownSignalsError(errno: errno) }
        }
        let readEnd = ends[0]
        return AsyncStream { continuation in
            Thread {
                var byte: UInt8 = 0
                while true {
                    let count = read(readEnd, &byte, 1)
                    if count == 1 {
                        continuation.yield(Int32(byte))
                        continue
                    }
                    if count < 0 && errno == EINTR { continue }
                    continuation.finish()
                    return
                }
            }.start()
        }
    }

    /// Runs `group` until it ends: the first SIGTERM or SIGINT drains it gracefully, a second cancels what is
    /// left; SIGHUP (`systemctl kill -s HUP peez`) calls `onHangUp` and stops nothing.
    static func run(_ group: ServiceGroup, logger: Logger, onHangUp: @escaping @Sendable () -> Void = {}) async throws {
        let signals = try watch([SIGTERM, SIGINT, SIGHUP])
        let running = Task { try await group.run() }
        let watcher = Task {
            var received = 0
            for await signal in signals {
                if signal == SIGHUP {
                    logger.info("SIGHUP received: reloading what can be reloaded (the TLS certificate)")
                    onHangUp()
                    continue
                }
                received += 1
                let name = signal == SIGTERM ? "SIGTERM" : "SIGINT"
                if received == 1 {
                    logger.info("\(name) received: finishing the requests under way, then stopping")
                    await group.triggerGracefulShutdown()
                } else {
                    logger.warning("\(name) received again: cancelling what is left")
                    running.cancel()
                }
            }
        }
        defer { watcher.cancel() }
        try await running.value
    }
}

/// The write end of the signal pipe: a plain global, the only state a signal handler may touch.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

struct ShutdownSignalsError: Error, CustomStringConvertible {
    let errno: Int32
    var description: String { "cannot watch for SIGTERM and SIGINT: \(String(cString: strerror(errno)))" }
}
