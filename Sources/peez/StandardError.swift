import Foundation

/// Writes a line to standard error, where messages for a person go when standard output carries data.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// Writes a line to standard output at once (unbuffered), so a log file or pipe sees it immediately.
func printNow(_ message: String) {
    FileHandle.standardOutput.write(Data((message + "\n").utf8))
}
