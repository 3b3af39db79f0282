#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address as the service compares and shows it.
///
/// Read strictly, whoever wrote it (a setting, a socket, a proxy's header): IPv4 in dotted decimal, IPv6 as
/// RFC 4291 writes it; no host name, no port, no zone, no brackets. An IPv4-mapped IPv6 address
/// (`::ffff:192.0.2.1`, as a dual-stack socket reports an IPv4 peer) is the IPv4 address it carries. Shown in one
/// spelling (RFC 5952), so two spellings of one address are one client to the limits and the audit trail.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// 4 bytes for IPv4, 16 for IPv6, network order.
    let bytes: [UInt8]

    /// The longest text an address may be: an IPv6 address with an IPv4 tail,
    /// `ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255`.
    static let maxTextLength = 45

    /// The address `text` spells, or nil when it spells none.
    public init?(_ text: some StringProtocol) {
        let utf8 = text.utf8
        guard (2...Self.maxTextLength).contains(utf8.count),
            utf8.allSatisfy({ Self.isHexDigit($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: ":") })
        else { return nil }
        let isIPv6 = utf8.contains(UInt8(ascii: ":"))
        var buffer = [UInt8](repeating: 0, count: isIPv6 ? 16 : 4)
        // The characters were checked above: no NUL byte can end the C string early.
        let parsed = String(text).withCString { cString in
            buffer.withUnsafeMutableBytes { inet_pton(isIPv6 ? AF_INET6 : AF_INET, cString, $0.baseAddress) }
        }
        guard parsed == 1 else { return nil }
        self.init(bytes: buffer)
    }

    /// The address of these 4 or 16 bytes; an IPv4-mapped IPv6 address becomes its IPv4 address.
    init(bytes: [UInt8]) {
        precondition(bytes.count == 4 || bytes.count == 16, "an IP address is 4 or 16 bytes")
        if bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            self.bytes = Array(bytes[12...])
        } else {
            self.bytes = bytes
        }
    }

    public var isIPv4: Bool { bytes.count == 4 }

    /// The canonical text: `192.0.2.1`, `2001:db8::1`.
    public var description: String {
        var text = [CChar](repeating: 0, count: 64)
        let written = bytes.withUnsafeBytes { address in
            inet_ntop(isIPv4 ? AF_INET : AF_INET6, address.baseAddress, &text, socklen_t(text.count))
        }
        guard written != nil else { return "unknown" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
}
