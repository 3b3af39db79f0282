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
        _ = FileManager.default.createFile(atPath: folder.file("out"), contents: nil)  // a failure shows when it is opened
        _ = FileManager.default.createFile(atPath: folder.file("err"), contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: folder.file("out")))
        let error = try FileHandle(forWritingTo: URL(fileURLWithPath: folder.file("err")))
        defer {
            try? output.close()
            try? error.close()
        }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = error
        let standardInput = Pipe()
        process.standardInput = standardInput
        try process.run()
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        if let input { try? standardInput.fileHandleForWriting.write(contentsOf: input) }
        try? standardInput.fileHandleForWriting.close()
        process.waitUntilExit()
        watchdog.cancel()
        return ProcessResult(
            status: process.terminationStatus,
            standardOutput: try String(contentsOfFile: folder.file("out"), encoding: .utf8),
            standardError: try String(contentsOfFile: folder.file("err"), encoding: .utf8)
        )
    }
}

extension ProcessRunner {
    /// ``run(_:input:timeout:)`` on a thread of its own, for async callers: waiting for a program must not hold
    /// one of the few threads Swift concurrency runs every task on (two on a two-core machine). A test blocked
    /// there while the program waits on other tasks' database sessions (`DROP DATABASE … WITH (FORCE)` does)
    /// would stop every test.
    public static func runOnOwnThread(_ arguments: [String], input: Data? = nil, timeout: TimeInterval = 60) async throws -> ProcessResult {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try run(arguments, input: input, timeout: timeout) }) }.start()
        }
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
