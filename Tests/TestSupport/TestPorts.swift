import Foundation

/// Ports for the servers tests start on loopback.
public enum TestPorts {
    /// A loopback port nothing is bound to now, below the kernel's ephemeral range (32768 and up on Linux):
    /// a port picked from that range may already be the local end of one of the many outgoing connections a
    /// test run makes, and the server would then fail to start.
    public static func unused() -> Int {
        while true {
            let port = Int.random(in: 20_000..<32_000)
            if canBind(port) { return port }
        }
    }

    private static func canBind(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
