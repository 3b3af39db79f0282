import Foundation
import Glibc

/// A loopback server that answers every connection with the same raw bytes, then closes it: a peer that
/// misbehaves exactly as a test needs (a 201 whose body is not the service's).
public final class OneAnswerServer: @unchecked Sendable {
    public let port: Int
    private let listener: Int32
    private let answer: [UInt8]

    public init(answer: String) throws {
        self.answer = Array(answer.utf8)
        let socket = Loopback.tcpSocket()
        var one: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var chosen = 0
        for _ in 0..<20 {
            let candidate = TestPorts.unused()
            if Loopback.withAddress(port: candidate, { bind(socket, $0, $1) }) == 0 {
                chosen = candidate
                break
            }
        }
        guard chosen != 0, listen(socket, 16) == 0 else {
            close(socket)
            throw RawConnection.SocketError(description: "cannot listen on loopback")
        }
        listener = socket
        port = chosen
        let (listener, answer) = (listener, self.answer)
        Thread {
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                var buffer = [UInt8](repeating: 0, count: 65_536)
                _ = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
                _ = answer.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(client)
            }
        }.start()
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}
