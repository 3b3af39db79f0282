import Foundation
import TestSupport

/// Runs the `peez` binary built next to the test bundle, as a person or a script would.
enum PeezCommand {
    static let binary = Bundle.main.bundleURL.appendingPathComponent("peez").path

    static func run(_ arguments: [String], input: String? = nil) throws -> ProcessResult {
        try ProcessRunner.run([binary] + arguments, input: input.map { Data($0.utf8) })
    }

    /// ``run(_:input:)`` for async callers, waiting on a thread of its own (see `ProcessRunner`).
    static func run(_ arguments: [String], input: String? = nil) async throws -> ProcessResult {
        try await ProcessRunner.run([binary] + arguments, input: input.map { Data($0.utf8) })
    }
}
