import Foundation
import Synchronization

/// A Python virtual environment under `.build/` with the PyPI packages a test server needs, made once (the
/// first test that asks for it installs them; later runs reuse it).
public enum PythonTool {
    /// One test makes the venv while the others wait (tests run in parallel; two pips in one venv break it).
    private static let making = Mutex(())

    /// The venv's python, with `packages` installed (`make test` installs them before the tests run).
    public static func python(packages: [String], name: String) throws -> String {
        try making.withLock { _ in try make(packages: packages, name: name) }
    }

    private static func make(packages: [String], name: String) throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let venv = root.appendingPathComponent(".build/\(name)").path
        let python = venv + "/bin/python"
        let marker = venv + "/.installed-" + packages.joined(separator: "-").replacingOccurrences(of: "/", with: "_")
        if FileManager.default.fileExists(atPath: marker) { return python }
        let made = try ProcessRunner.run(
            [
                "bash", "-c",
                "python3 -m venv '\(venv)' && '\(venv)/bin/pip' install --quiet --disable-pip-version-check \(packages.joined(separator: " ")) && touch '\(marker)'",
            ],
            timeout: 600
        )
        guard made.status == 0 else { throw PythonToolError(message: made.standardError) }
        return python
    }
}

/// The venv could not be made.
public struct PythonToolError: Error {
    public let message: String
    public init(message: String) { self.message = message }
}
