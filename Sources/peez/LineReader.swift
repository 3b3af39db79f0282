#if canImport(Glibc)
import Glibc
#endif

/// Reads lines from a file descriptor as they arrive, holding at most `maxLineLength` bytes of one line.
///
/// A line ends at LF or CR (handheld scanners send either, or both). A longer line is reported as
/// ``Line/tooLong(_:)`` and its rest skipped, so no input can make the reader grow without bound.
struct LineReader {
    enum Line {
        case text([UInt8])
        case tooLong(Int)
    }

    private let fileDescriptor: Int32
    private let maxLineLength: Int
    private var buffer = [UInt8](repeating: 0, count: 65_536)
    private var bufferStart = 0
    private var bufferEnd = 0
    private var atEnd = false

    init(fileDescriptor: Int32, maxLineLength: Int) {
        self.fileDescriptor = fileDescriptor
        self.maxLineLength = maxLineLength
    }

    /// The next line, or nil at the end of input.
    mutating func nextLine() -> Line? {
        var line: [UInt8] = []
        var length = 0
        var sawAnything = false
        while true {
            if bufferStart == bufferEnd {
                guard !atEnd, refill() else {
                    guard sawAnything else { return nil }
                    return length > maxLineLength ? .tooLong(length) : .text(line)
                }
            }
            let byte = buffer[bufferStart]
            bufferStart += 1
            if byte == 0x0A || byte == 0x0D {
                if !sawAnything { continue }  // the LF of a CR LF pair, or an empty line
                return length > maxLineLength ? .tooLong(length) : .text(line)
            }
            sawAnything = true
            length += 1
            if length <= maxLineLength { line.append(byte) } else if line.count > 0 { line = [] }
        }
    }

    /// The next line, then every further line already read in full: a scanner's line comes alone and at once,
    /// a file's come many at a time. Nil at the end of input.
    mutating func nextLines(upTo limit: Int) -> [Line]? {
        guard let first = nextLine() else { return nil }
        var lines = [first]
        while lines.count < limit, hasWholeLineBuffered, let line = nextLine() { lines.append(line) }
        return lines
    }

    /// Whether the bytes already read hold a line end, after something that is not one (so that reading the
    /// next line needs no further read, which could wait on a scanner).
    private var hasWholeLineBuffered: Bool {
        var index = bufferStart
        while index < bufferEnd, buffer[index] == 0x0A || buffer[index] == 0x0D { index += 1 }
        while index < bufferEnd {
            if buffer[index] == 0x0A || buffer[index] == 0x0D { return true }
            index += 1
        }
        return false
    }

    private mutating func refill() -> Bool {
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fileDescriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                atEnd = true
                return false
            }
            bufferStart = 0
            bufferEnd = count
            return true
        }
    }
}
