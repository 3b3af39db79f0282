import Foundation
import TestSupport

/// Runs the `peez` binary built next to the test bundle, as a person or a script would.
enum PeezCommand {
    static let binary = Bundle.main.bundleURL.appendingPathComponent("peez").path

    static func run(_ arguments: [String], input: String? = nil) throws -> ProcessResult {
        try ProcessRunner.run([binary] + arguments, input: input.map { Data($0.utf8) })
    }
}
