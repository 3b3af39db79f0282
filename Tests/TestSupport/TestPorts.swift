import Foundation
import Synchronization

/// Ports for the servers tests start on loopback.
public enum TestPorts {
    /// A loopback port nothing is bound to now, below the kernel's ephemeral range (32768 and up on Linux):
    /// a port picked from that range may already be the local end of one of the many outgoing connections a
    /// test run makes, and the server would then fail to start.
    /// No port is handed out twice in one test run: two tests running at once never race for one port between
    /// this check and their server's bind.
    public static func unused() -> Int {
        while true {
            let port = Int.random(in: 20_000..<32_000)
            guard handedOut.withLock({ $0.insert(port).inserted }) else { continue }
            if canBind(port) { return port }
        }
    }

    private static let handedOut = Mutex<Set<Int>>([])

    private static func canBind(_ port: Int) -> Bool {
        let descriptor = Loopback.tcpSocket()
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return Loopback.withAddress(port: port) { bind(descriptor, $0, $1) == 0 }
    }
}
