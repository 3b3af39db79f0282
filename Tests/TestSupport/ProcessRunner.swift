public import Foundation

/// The result of running a program to completion.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var standardOutput: String
    public var standardError: String
}

/// Runs real programs (openssl, zbarimg, the `peez` binary) from tests.
public enum ProcessRunner {
    /// Runs `arguments[0]` (looked up on PATH unless it is a path) with the rest as arguments.
    ///
    /// Output goes to temporary files rather than pipes, so nothing has to drain them concurrently and a
    /// chatty program can never block. A program still running after `timeout` seconds is killed.
    public static func run(_ arguments: [String], input: Data? = nil, timeout: TimeInterval = 60) throws -> ProcessResult {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let standardInput = Pipe()
        let process = try ChildProcess(
            "/usr/bin/env",
            arguments,
            standardInput: .pipe(standardInput),
            standardOutput: .file(folder.file("out")),
            standardError: .file(folder.file("err"))
        )
        // Past the timeout the program is asked to end, and five seconds later made to.
        let deadline = Date().addingTimeInterval(timeout)
        let watchdog = Thread {
            while process.isRunning && Date() < deadline { usleep(20_000) }
            guard process.isRunning else { return }
            process.terminate()
            let grace = Date().addingTimeInterval(5)
            while process.isRunning && Date() < grace { usleep(20_000) }
            process.signal(SIGKILL)
        }
        watchdog.start()
        if let input { try? standardInput.fileHandleForWriting.write(contentsOf: input) }
        try? standardInput.fileHandleForWriting.close()
        process.waitUntilExit()
        return ProcessResult(
            status: process.terminationStatus,
            standardOutput: String(decoding: FileManager.default.contents(atPath: folder.file("out")) ?? Data(), as: UTF8.self),
            standardError: String(decoding: FileManager.default.contents(atPath: folder.file("err")) ?? Data(), as: UTF8.self)
        )
    }
}

extension ProcessRunner {
    /// ``run(_:input:timeout:)`` for async callers (Swift picks this one in async code), waiting on a thread of its
    /// own: waiting for a program must not hold one of the few threads Swift concurrency runs every task on (two
    /// on a two-core machine). Tests holding both while their programs ran stalled every other test, and one
    /// whose program waited on other tasks' database sessions (`DROP DATABASE … WITH (FORCE)` does) stopped them.
    public static func run(_ arguments: [String], input: Data? = nil, timeout: TimeInterval = 60) async throws -> ProcessResult {
        try await onOwnThread { try run(arguments, input: input, timeout: timeout) as ProcessResult }
    }
}

/// Runs `body`, which blocks (it starts a server and waits for it, makes keys with openssl, starts PostgreSQL), on a
/// thread of its own, so that the few threads every test's tasks share keep running meanwhile.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// A fresh folder under the system's temporary directory, removed by `remove()`.
public struct TemporaryFolder: Sendable {
    public let path: String

    public init() throws {
        path = NSTemporaryDirectory() + "peez-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    private init(existing path: String) {
        self.path = path
    }

    /// A path inside the folder.
    public func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    public func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// The repository's root folder, found from this source file.
public let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

extension TemporaryFolder {
    /// A folder inside another, removed with it.
    public init(in parent: TemporaryFolder, _ name: String) throws {
        self.init(existing: parent.file(name))
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
}
