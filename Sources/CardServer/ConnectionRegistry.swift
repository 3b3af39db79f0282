import NIOCore
import Synchronization

/// Every open connection and since when it has been idle (no request in progress), shared by all event loops.
///
/// At the cap a new connection makes room by closing the connection idle the longest; if none is idle, the new
/// one is refused at once. One client address may hold only so many idle connections, except a trusted reverse
/// proxy's (its keep-alive connections carry many clients; the cap on all still holds). So idle sockets, however
/// many, cannot keep a request waiting: a client gets an answer (served, or a 503) at once.
final class ConnectionRegistry: Sendable {
    private struct Entry {
        let channel: any Channel
        let address: String
        /// When it last became idle; nil while a request is in progress.
        var idleSince: NIODeadline?
    }

    /// What happens to a new connection.
    enum Admission {
        /// Served; close these idle connections to make room.
        case admitted(closing: [any Channel])
        /// Nothing idle could make room: answer 503 and close.
        case refused
    }

    private let entries = Mutex<[ObjectIdentifier: Entry]>([:])
    private let maxConnections: Int
    private let maxIdlePerAddress: Int
    /// Addresses held to no idle limit of their own.
    private let trustedProxies: TrustedProxies

    init(limits: ConnectionLimits, trustedProxies: TrustedProxies = .none) {
        maxConnections = limits.maxConnections
        maxIdlePerAddress = limits.maxIdlePerAddress
        self.trustedProxies = trustedProxies
    }

    /// Registers a new connection (idle until its first byte) and says what becomes of it.
    func open(_ channel: any Channel, now: NIODeadline = .now()) -> Admission {
        let address = channel.remoteAddress?.ipAddress ?? "unknown"
        let id = ObjectIdentifier(channel)
        let exempt = trustedProxies.contains(address)
        return entries.withLock { entries in
            entries[id] = Entry(channel: channel, address: address, idleSince: now)
            var closing: [ObjectIdentifier] = []
            if entries.count > maxConnections {
                // The longest idle, never the newcomer while another is idle (it is the newest idle of all).
                guard let oldest = Self.longestIdle(entries, where: { _ in true }), oldest != id else {
                    entries[id] = nil
                    return .refused
                }
                closing.append(oldest)
            }
            let idleHere =
                entries.values.filter { $0.address == address && $0.idleSince != nil }.count
                - closing.filter { entries[$0]?.address == address }.count
            if !exempt, idleHere > maxIdlePerAddress,
                let oldest = Self.longestIdle(entries, where: { $0.value.address == address && $0.key != id && !closing.contains($0.key) })
            {
                closing.append(oldest)
            }
            return .admitted(closing: closing.compactMap { entries.removeValue(forKey: $0)?.channel })
        }
    }

    /// A request started on the connection (`idle` false), or its response ended (`idle` true).
    func setIdle(_ channel: any Channel, _ idle: Bool, now: NIODeadline = .now()) {
        entries.withLock { entries in
            entries[ObjectIdentifier(channel)]?.idleSince = idle ? now : nil
        }
    }

    /// The connection closed.
    func close(_ channel: any Channel) {
        _ = entries.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Open connections (for tests and metrics).
    var count: Int { entries.withLock { $0.count } }

    private static func longestIdle(
        _ entries: [ObjectIdentifier: Entry],
        where include: ((key: ObjectIdentifier, value: Entry)) -> Bool
    ) -> ObjectIdentifier? {
        var oldest: (id: ObjectIdentifier, since: NIODeadline)?
        for entry in entries where include(entry) {
            guard let since = entry.value.idleSince else { continue }
            if oldest == nil || since < oldest!.since { oldest = (entry.key, since) }
        }
        return oldest?.id
    }
}
