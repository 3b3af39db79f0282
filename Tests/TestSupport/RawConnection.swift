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

    /// The first bytes of a response that arrive within `limit` (a short response arrives whole), without
    /// waiting for the connection to close; nil if nothing came.
    public func readResponse(within limit: Duration) async -> String? {
        guard let chunk = await receive(before: ContinuousClock.now + limit), !chunk.isEmpty else { return nil }
        return String(decoding: chunk, as: UTF8.self)
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
