/// The reverse proxies whose forwarding headers the service believes (`peez serve --trusted-proxies`):
/// addresses and CIDR ranges, IPv4 and IPv6, as `127.0.0.1,::1,10.0.0.0/8`.
///
/// Empty by default: then no `Forwarded` or `X-Forwarded-For` header is read, and every client is the socket's
/// peer. A request from a listed address is read through ``ForwardedChain``, and such an address is not held to
/// the idle connections one client may keep (its keep-alive connections carry many clients).
public struct TrustedProxies: Sendable, Hashable, CustomStringConvertible {
    /// The ranges, as given.
    public let ranges: [IPRange]

    /// No proxy is trusted.
    public static let none = TrustedProxies(ranges: [])

    /// The most entries a list may have: a proxy tier is a few addresses or ranges.
    public static let maxEntries = 64

    public init(ranges: [IPRange]) {
        self.ranges = ranges
    }

    /// The comma-separated list `text` (spaces around entries allowed); each entry one address or CIDR range.
    public init(parsing text: String) throws(TrustedProxiesError) {
        let entries = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingSpaces }
        guard entries.count <= Self.maxEntries else {
            throw TrustedProxiesError("it has \(entries.count) entries, at most \(Self.maxEntries): use CIDR ranges, as 10.0.0.0/8")
        }
        var ranges: [IPRange] = []
        for entry in entries {
            guard !entry.isEmpty else { throw TrustedProxiesError("an entry is empty: separate addresses with single commas") }
            ranges.append(try IPRange(parsing: entry))
        }
        self.init(ranges: ranges)
    }

    public var isEmpty: Bool { ranges.isEmpty }

    /// Whether `address` is one of the trusted proxies.
    public func contains(_ address: IPAddress) -> Bool {
        ranges.contains { $0.contains(address) }
    }

    /// Whether the address `text` (a socket's peer as NIO spells it) is one of the trusted proxies.
    func contains(_ text: String?) -> Bool {
        guard !isEmpty, let address = text.flatMap({ IPAddress($0) }) else { return false }
        return contains(address)
    }

    /// The list as it would be given back: `127.0.0.1/32,10.0.0.0/8`.
    public var description: String { ranges.map(\.description).joined(separator: ",") }
}

/// An IPv4 or IPv6 network: an address and how many of its leading bits are fixed (`10.0.0.0/8`, `fd00::/8`); a
/// bare address is the range of that one address.
public struct IPRange: Hashable, Sendable, CustomStringConvertible {
    public let network: IPAddress
    public let prefixLength: Int

    /// `text` as an address or `address/prefix`; an error says which part is wrong. Host bits set beyond the
    /// prefix (`10.0.0.1/8`) are refused: such a range most likely says something else than was meant.
    public init(parsing text: some StringProtocol) throws(TrustedProxiesError) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else {
            throw TrustedProxiesError(
                "'\(text.prefix(60))' is not an IP address or CIDR range; host names are not looked up: give the proxy's address"
            )
        }
        // The prefix counts the bits of the address as written: an IPv4-mapped IPv6 address has 128.
        let bits = parts[0].contains(":") ? 128 : 32
        var length = address.bytes.count * 8
        if parts.count == 2 {
            guard parts[1].utf8.count <= 3, parts[1].utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                let given = Int(parts[1]), given <= bits
            else {
                throw TrustedProxiesError("'\(text.prefix(60))' has a prefix length that is not a whole number from 0 to \(bits)")
            }
            length = given
            // An IPv4-mapped network (::ffff:10.0.0.0/104) is read as the IPv4 network it maps.
            if address.isIPv4 && parts[0].contains(":") {
                guard given >= 96 else { throw TrustedProxiesError("'\(text.prefix(60))' is an IPv4-mapped range shorter than /96") }
                length = given - 96
            }
        }
        guard Self.masked(address, length) == address else {
            throw TrustedProxiesError(
                "'\(text.prefix(60))' has bits set past its prefix: write the network, as \(Self.masked(address, length))/\(length)"
            )
        }
        self.network = address
        self.prefixLength = length
    }

    /// Whether `address` lies in this range (an IPv4 address never lies in an IPv6 range, nor the other way).
    public func contains(_ address: IPAddress) -> Bool {
        address.bytes.count == network.bytes.count && Self.masked(address, prefixLength) == network
    }

    public var description: String { "\(network)/\(prefixLength)" }

    /// `address` with every bit past the first `length` cleared.
    private static func masked(_ address: IPAddress, _ length: Int) -> IPAddress {
        var bytes = address.bytes
        for index in bytes.indices {
            let kept = min(max(length - index * 8, 0), 8)
            bytes[index] &= kept == 0 ? 0 : ~UInt8(0) << (8 - kept)
        }
        return IPAddress(bytes: bytes)
    }
}

/// A trusted-proxy list the service cannot use, saying which entry and why.
public struct TrustedProxiesError: Error, Hashable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: Substring {
        let isText = { (character: Character) in character != " " && character != "\t" }
        guard let first = firstIndex(where: isText), let last = lastIndex(where: isText) else { return "" }
        return self[first...last]
    }
}
