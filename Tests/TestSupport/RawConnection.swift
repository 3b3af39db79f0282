import Foundation
import Glibc

/// A loopback TCP client that writes exactly the bytes a test gives it, as a slow or hostile client would.
public final class RawConnection {
    public struct SocketError: Error, CustomStringConvertible {
        public let description: String
    }

    private let descriptor: Int32

    public init(port: Int) throws {
        descriptor = Loopback.tcpSocket()
        guard Loopback.withAddress(port: port, { connect(descriptor, $0, $1) }) == 0 else {
            close(descriptor)
            throw SocketError(description: "cannot connect to 127.0.0.1:\(port)")
        }
    }

    deinit { close(descriptor) }

    /// Writes `text`; false once the server has closed the connection.
    @discardableResult
    public func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Everything the server sends until it closes the connection, or nil if it is still open after `limit`.
    public func readUntilClosed(within limit: Duration) async -> String? {
        var received: [UInt8] = []
        let deadline = ContinuousClock.now + limit
        while let chunk = await receive(before: deadline) {
            if chunk.isEmpty { return String(decoding: received, as: UTF8.self) }
            received += chunk
        }
        return nil
    }

    /// One whole response received within `limit` (its head, then the body its `Content-Length` or chunked
    /// framing announces), without waiting for the connection to close; what came before `limit` or the close if
    /// the response is cut short, and nil if nothing came. A loaded machine may deliver head and body apart.
    public func readResponse(within limit: Duration) async -> String? {
        let deadline = ContinuousClock.now + limit
        var received: [UInt8] = []
        while !Self.isCompleteResponse(received), let chunk = await receive(before: deadline), !chunk.isEmpty {
            received += chunk
        }
        return received.isEmpty ? nil : String(decoding: received, as: UTF8.self)
    }

    private static func isCompleteResponse(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let headEnd = text.range(of: "\r\n\r\n") else { return false }
        let head = text[..<headEnd.lowerBound].lowercased()
        let body = text[headEnd.upperBound...]
        if head.contains("transfer-encoding: chunked") { return body.hasSuffix("0\r\n\r\n") }
        guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        else { return true }
        return body.utf8.count >= length
    }

    /// The next bytes received before `deadline`: empty once the server closed the connection, nil if none came.
    /// It never blocks a thread: the server under test runs its handlers on the same cooperative pool.
    private func receive(before deadline: ContinuousClock.Instant) async -> [UInt8]? {
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 0) > 0 else {
                try? await Task.sleep(for: .milliseconds(10))
                continue
            }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            return count > 0 ? Array(buffer.prefix(count)) : []
        }
        return nil
    }
}
