import Foundation
public import Membership

/// Writes each reminder as one JSON line to a file (appended, flushed to the disk before the reminders are
/// marked delivered) or to standard output. A run killed between the write and the mark writes those lines
/// again on the next run, with the same `reminder_id`: a reader keeps the first line of each id.
public final class JSONLinesSink: ReminderSink, @unchecked Sendable {
    private let descriptor: Int32
    private let isFile: Bool
    private let lock = NSLock()

    /// `path` "-" is standard output.
    public init(path: String) throws {
        if path == "-" {
            descriptor = 1
            isFile = false
        } else {
            descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o640)
            guard descriptor >= 0 else { throw ReminderSinkError("cannot open \(path): \(String(cString: strerror(errno)))") }
            isFile = true
        }
    }

    /// A batch's write and flush; a disk that takes longer risks a line written twice, which readers drop by id.
    public var longestDeliverySeconds: Int64 { 5 }

    public func deliver(_ messages: [ReminderDelivery], mayStart: @escaping @Sendable (_ id: String) async -> Bool) async -> [ReminderOutcome] {
        var allowed: [Bool] = []
        for message in messages { allowed.append(await mayStart(message.id)) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(messages.reduce(0) { $0 + $1.body.count + 1 })
        for (message, allowed) in zip(messages, allowed) where allowed {
            bytes += message.body
            bytes.append(0x0A)
        }
        let error: String? = lock.withLock {
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return "cannot write the JSON Lines sink: \(String(cString: strerror(errno)))" }
                offset += written
            }
            if isFile && fdatasync(descriptor) != 0 { return "cannot flush the JSON Lines sink: \(String(cString: strerror(errno)))" }
            return nil
        }
        // A failed write may have written part of the lines: those come again, with their ids, next time.
        return allowed.map { allowed in allowed ? error.map { .retry($0, sent: true, retryAfter: nil) } ?? .delivered : .leaseLost }
    }

    public func close() async {
        if isFile { _ = Glibc.close(descriptor) }
    }
}

/// A sink that cannot be used.
public struct ReminderSinkError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
