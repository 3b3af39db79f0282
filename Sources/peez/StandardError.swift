import Foundation

/// Writes a line to standard error, where messages for a person go when standard output carries data.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
