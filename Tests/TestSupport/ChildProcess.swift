public import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A program the tests start, through `posix_spawn` rather than Foundation's `Process`.
///
/// Foundation's `Process` on Linux broke whole test runs on two cores: `run()` crashed now and then while other
/// tests launched programs (a bad pointer in its descriptor bookkeeping), and `waitUntilExit()`, which waits on a
/// run loop for Foundation to deliver the child's end, parked a thread for good after the child had exited, so the
/// suite hung until CI's time ran out. Here the child gets exactly the three descriptors asked for (every other
/// one is closed in it, so no program left running holds a pipe of the tests open), and its end is seen by
/// `waitpid` alone, polled: nothing to deliver, nothing to miss.
public final class ChildProcess: Sendable {
    /// Where one of the child's three standard streams goes.
    public enum Stream: Sendable {
        /// `/dev/null`.
        case null
        /// A file: read for standard input; created or emptied for output.
        case file(String)
        /// The child's end of a pipe; the tests keep the other end (the child's is closed here after the start).
        case pipe(Pipe)
    }

    /// The child's process id.
    public let processIdentifier: pid_t
    private let ownGroup: Bool
    /// The `waitpid` status once the child has ended and been reaped.
    private let reaped = Mutex<Int32?>(nil)

    /// Starts `executable` (a path, or a name looked up on PATH) with `arguments`.
    ///
    /// - Parameters:
    ///   - environment: the whole environment of the child; nil for the test runner's.
    ///   - ownGroup: puts the child in a process group of its own, so ``signal(_:)`` reaches every program it
    ///     starts (servers that fork workers).
    public init(
        _ executable: String,
        _ arguments: [String] = [],
        environment: [String: String]? = nil,
        standardInput: Stream = .null,
        standardOutput: Stream = .null,
        standardError: Stream = .null,
        ownGroup: Bool = false
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (descriptor, stream) in [(Int32(0), standardInput), (1, standardOutput), (2, standardError)] {
            switch stream {
            case .null: posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let path):
                let flags = descriptor == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC
                posix_spawn_file_actions_addopen(&actions, descriptor, path, flags, 0o600)
            case .pipe(let pipe):
                let end = descriptor == 0 ? pipe.fileHandleForReading : pipe.fileHandleForWriting
                posix_spawn_file_actions_adddup2(&actions, end.fileDescriptor, descriptor)
            }
        }
        guard Self.addCloseFrom(&actions, 3) == 0 else { throw ChildProcessError("cannot ask posix_spawn to close descriptors") }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The child starts with the default signal dispositions and no blocked signals, whatever the runner set.
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        var flags = Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)
        if ownGroup {
            flags |= Int16(POSIX_SPAWN_SETPGROUP)
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        posix_spawnattr_setflags(&attributes, flags)

        let environment = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        var pid = pid_t()
        let result = Self.withCStrings([executable] + arguments) { argv in
            Self.withCStrings(environment) { envp in
                posix_spawnp(&pid, executable, &actions, &attributes, argv, envp)
            }
        }
        guard result == 0 else { throw ChildProcessError("cannot start \(executable): \(String(cString: strerror(result)))") }
        processIdentifier = pid
        self.ownGroup = ownGroup
        // The child holds its ends of the pipes now; the runner's copies would keep the other end from ever
        // seeing the end of the stream.
        if case .pipe(let pipe) = standardInput { try? pipe.fileHandleForReading.close() }
        if case .pipe(let pipe) = standardOutput { try? pipe.fileHandleForWriting.close() }
        if case .pipe(let pipe) = standardError, !Self.isSamePipe(standardOutput, standardError) { try? pipe.fileHandleForWriting.close() }
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 on), which Swift's Glibc module leaves out
    /// (it is declared for _GNU_SOURCE only).
    private static let addCloseFrom: @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32 = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np") else {
            fatalError("this C library has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later has)")
        }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    private static func isSamePipe(_ one: Stream, _ other: Stream) -> Bool {
        if case .pipe(let first) = one, case .pipe(let second) = other { return first === second }
        return false
    }

    private static func withCStrings<T>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) throws -> T) rethrows -> T {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        return try body(pointers)
    }

    /// Whether the child is still running (reaps it when it has ended).
    public var isRunning: Bool { status() == nil }

    /// The exit code, or 128 + the signal that ended the child (as a shell says); -1 while it runs.
    public var terminationStatus: Int32 {
        guard let status = status() else { return -1 }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// Whether the child was ended by a signal.
    public var endedBySignal: Bool { status().map { $0 & 0x7f != 0 } ?? false }

    private func status() -> Int32? {
        reaped.withLock { reaped in
            if let reaped { return reaped }
            var status: Int32 = 0
            let result = waitpid(processIdentifier, &status, WNOHANG)
            if result == processIdentifier {
                reaped = status
            } else if result == -1 && errno == ECHILD {
                reaped = 0x7f00  // reaped elsewhere: ended, status unknown
            }
            return reaped
        }
    }

    /// Sends `signal` to the child (to its whole group if it has one of its own), unless it has ended.
    public func signal(_ signal: Int32) {
        reaped.withLock { reaped in
            guard reaped == nil else { return }
            kill(ownGroup ? -processIdentifier : processIdentifier, signal)
        }
    }

    /// Asks the child to end (SIGTERM).
    public func terminate() { signal(SIGTERM) }

    /// Blocks this thread until the child has ended. For threads of their own and short programs; async code
    /// calls ``exited()``.
    public func waitUntilExit() {
        var pause: useconds_t = 1_000
        while isRunning {
            usleep(pause)
            pause = min(pause * 2, 20_000)
        }
    }

    /// Suspends until the child has ended, without holding a thread; its ``terminationStatus``.
    @discardableResult
    public func exited() async -> Int32 {
        var pause = 1
        while isRunning {
            try? await Task.sleep(for: .milliseconds(pause))
            pause = min(pause * 2, 20)
        }
        return terminationStatus
    }

    /// Kills the child (and its group) with SIGKILL and reaps it.
    public func kill9() {
        signal(SIGKILL)
        waitUntilExit()
    }

    deinit {
        // A test that failed half-way leaves no program running behind it, nor a zombie.
        if isRunning { kill9() }
    }
}

/// A program could not be started.
public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
