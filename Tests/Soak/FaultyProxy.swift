import Foundation
public import PeezBasics
import Synchronization
import TestSupport

/// A TCP proxy on loopback in front of an instance (for the clients) or of PostgreSQL (for the instances) that,
/// drawn from the run's seed, delays what it forwards, refuses connections, cuts a connection as an answer comes
/// back (the request went through, its answer is lost), and sends a connection's first request twice (on a
/// connection of its own, whose answer it throws away: a request the network delivered twice).
public final class FaultyProxy: @unchecked Sendable {
    /// How likely each fault is: per connection (refuse, duplicate) or per chunk forwarded (delay, cut).
    public struct Odds: Sendable {
        public var refuse = 0.0
        public var duplicate = 0.0
        public var delay = 0.0
        public var cut = 0.0
        /// The longest delay, in milliseconds.
        public var longestDelay = 300

        public init(refuse: Double = 0, duplicate: Double = 0, delay: Double = 0, cut: Double = 0, longestDelay: Int = 300) {
            self.refuse = refuse
            self.duplicate = duplicate
            self.delay = delay
            self.cut = cut
            self.longestDelay = longestDelay
        }

        /// In front of an instance: every fault.
        public static let clients = Odds(refuse: 0.02, duplicate: 0.25, delay: 0.05, cut: 0.01)
        /// In front of PostgreSQL: delays and cut connections (its protocol is not sent twice by any network).
        public static let database = Odds(delay: 0.02, cut: 0.002)
    }

    public let name: String
    public let port: Int
    private let target: Int
    private let odds: Odds
    private let listener: Int32
    private let random: Mutex<SplitMix64>
    private let counts = Mutex<[String: Int]>([:])

    public init(name: String, target: Int, odds: Odds, random: SplitMix64) throws {
        self.name = name
        self.target = target
        self.odds = odds
        self.random = Mutex(random)
        port = TestPorts.unused()
        listener = Loopback.tcpSocket()
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        guard Loopback.withAddress(port: port, { bind(listener, $0, $1) }) == 0, listen(listener, 128) == 0 else {
            close(listener)
            throw SoakError("the proxy \(name) cannot listen on port \(port): \(String(cString: strerror(errno)))")
        }
        let thread = Thread { [self] in acceptConnections() }
        thread.name = "soak proxy \(name)"
        thread.start()
    }

    /// How many faults of each kind it injected.
    public var injected: [String: Int] { counts.withLock { $0 } }

    /// Stops accepting; connections under way end with their peers.
    public func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func chance(_ odds: Double) -> Bool {
        odds > 0 && random.withLock { Double.random(in: 0..<1, using: &$0) } < odds
    }

    private func note(_ fault: String) {
        counts.withLock { $0["\(name) \(fault)", default: 0] += 1 }
    }

    private func acceptConnections() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                if errno == EINTR { continue }
                close(listener)
                return
            }
            if chance(odds.refuse) {
                note("refused")
                close(client)
                continue
            }
            let thread = Thread { [self] in forward(client) }
            thread.start()
        }
    }

    private func connectUpstream() -> Int32? {
        let upstream = Loopback.tcpSocket()
        guard Loopback.withAddress(port: target, { connect(upstream, $0, $1) }) == 0 else {
            close(upstream)
            return nil
        }
        return upstream
    }

    /// Forwards both ways until either side closes, injecting faults.
    private func forward(_ client: Int32) {
        guard let upstream = connectUpstream() else {
            close(client)
            return
        }
        var duplicate = chance(odds.duplicate)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var descriptors = [pollfd(fd: client, events: Int16(POLLIN), revents: 0), pollfd(fd: upstream, events: Int16(POLLIN), revents: 0)]
        defer {
            close(client)
            close(upstream)
        }
        while poll(&descriptors, 2, 60_000) > 0 {
            for index in 0..<2 where descriptors[index].revents != 0 {
                let (from, to) = index == 0 ? (client, upstream) : (upstream, client)
                let count = read(from, &buffer, buffer.count)
                guard count > 0 else { return }
                if chance(odds.delay) {
                    note("delay")
                    usleep(useconds_t(random.withLock { Int.random(in: 1...odds.longestDelay, using: &$0) } * 1_000))
                }
                if index == 1, chance(odds.cut) {
                    note("cut")
                    return
                }
                if index == 0, duplicate {
                    duplicate = false
                    sendTwice(Array(buffer[0..<count]))
                }
                guard writeAll(to, buffer[0..<count]) else { return }
            }
        }
    }

    /// Sends `bytes` on a connection of its own and reads its answer away, on a thread of its own.
    private func sendTwice(_ bytes: [UInt8]) {
        guard let second = connectUpstream() else { return }
        note("duplicate")
        Thread {
            defer { close(second) }
            guard Self.writeAll(second, bytes[...]) else { return }
            var sink = [UInt8](repeating: 0, count: 16_384)
            var descriptor = pollfd(fd: second, events: Int16(POLLIN), revents: 0)
            while poll(&descriptor, 1, 5_000) > 0, read(second, &sink, sink.count) > 0 {}
        }.start()
    }

    private func writeAll(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) -> Bool {
        Self.writeAll(descriptor, bytes)
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) -> Bool {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            // send, not write: a peer gone must be an error here, not a SIGPIPE that ends the run.
            let written = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }
}
