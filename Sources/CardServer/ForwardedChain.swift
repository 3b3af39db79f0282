/// The addresses a request was forwarded from, as reverse proxies record them, and the client they point at.
///
/// Each proxy adds the address it received the request from at the right: an RFC 7239 `Forwarded` element's
/// `for=`, or (only when the request has no `Forwarded` header) an entry of `X-Forwarded-For`. Whatever lies left
/// of what a trusted proxy added was written by someone it does not vouch for, so the chain is read from the right
/// (RFC 7239 §7.4 and §8.1), past addresses that are themselves trusted proxies, to the first that is not: the
/// client. A hop that names nothing believable (`unknown`, an obfuscated `_name`, an element without `for`, a
/// garbled value, a header past ``maxBytes`` or a chain past ``maxHops``) ends the walk at the last address
/// that could be believed: a trusted proxy's, never one a header made up.
///
/// Pure and bounded: at most ``maxBytes`` of each header are read, from the right, each byte once; nothing in
/// them can make it fail.
struct ForwardedChain: Equatable {
    /// One hop, nearest first.
    enum Hop: Equatable {
        /// A proxy received the request from this address.
        case address(IPAddress)
        /// A hop naming no address that can be believed; nothing left of it is read.
        case unusable
    }

    /// The hops from the right (the nearest first), up to and including the first `.unusable` one.
    let hops: [Hop]

    /// The most hops read: no real chain of proxies is this long.
    static let maxHops = 30
    /// The most bytes of a header read, counted from its last line: a chain of ``maxHops`` spelled long fits.
    static let maxBytes = 4096

    /// The chain the `Forwarded` header's lines record, or, when there is none, `X-Forwarded-For`'s.
    init(forwarded: [String], xForwardedFor: [String]) {
        if !forwarded.isEmpty {
            hops = Self.read(forwarded, Self.forwardedLine)
        } else {
            hops = Self.read(xForwardedFor, unquoted: true, Self.xForwardedForLine)
        }
    }

    init(hops: [Hop]) {
        self.hops = hops
    }

    /// The client's address: `peer` (the socket's) when it is not a trusted proxy; else the first address from
    /// the right that is not a trusted proxy, or, where a hop cannot be believed or the chain ends, the last
    /// address that could.
    func client(peer: IPAddress, trusted: TrustedProxies) -> IPAddress {
        guard trusted.contains(peer) else { return peer }
        var believed = peer
        for hop in hops {
            guard case .address(let address) = hop else { return believed }
            believed = address
            if !trusted.contains(address) { return address }
        }
        return believed
    }

    // MARK: Reading

    /// The hops of `lines` (one header's field lines, in the order received) from the right, each line read by
    /// `parse` into its hops from the left, within ``maxBytes`` and ``maxHops``. A line past the bytes left is
    /// `.unusable`, or, when its entries cannot be quoted (`unquoted`), read from its last whole entry within them.
    private static func read(_ lines: [String], unquoted: Bool = false, _ parse: (ArraySlice<UInt8>) -> [Hop]) -> [Hop] {
        var hops: [Hop] = []
        var budget = maxBytes
        for line in lines.reversed() {
            // Every line costs at least a byte, so a flood of empty lines is bounded too.
            let size = max(line.utf8.count, 1)
            let lineHops: [Hop]
            if size <= budget {
                lineHops = parse(ArraySlice(line.utf8))
            } else if unquoted, budget > 0, case let tail = ArraySlice(line.utf8.suffix(budget)),
                let comma = tail.firstIndex(of: UInt8(ascii: ","))
            {
                // Only whole entries: what precedes the tail's first comma may be the end of a longer one.
                lineHops = [.unusable] + parse(tail[tail.index(after: comma)...])
            } else {
                return hops + [.unusable]
            }
            budget -= size
            for hop in lineHops.reversed() {
                guard hops.count < maxHops else { return hops + [.unusable] }
                hops.append(hop)
                if hop == .unusable { return hops }
            }
        }
        return hops
    }

    /// One `Forwarded` line's elements (RFC 7239 §4: `for=192.0.2.60;proto=https, for="[2001:db8::1]:4711"`),
    /// each the hop its `for` names. A syntax error makes the rest of the line one `.unusable` hop: where the
    /// elements after it begin cannot be known.
    private static func forwardedLine(_ bytes: ArraySlice<UInt8>) -> [Hop] {
        var reader = Reader(bytes)
        var hops: [Hop] = []
        while true {
            reader.skipSpaces()
            if reader.atEnd { return hops }
            // Empty list elements are allowed and skipped (RFC 9110 §5.6.1).
            if reader.take(UInt8(ascii: ",")) { continue }
            guard let element = reader.forwardedElement() else { return hops + [.unusable] }
            hops.append(element)
            reader.skipSpaces()
            guard reader.atEnd || reader.take(UInt8(ascii: ",")) else { return hops + [.unusable] }
        }
    }

    /// One `X-Forwarded-For` line's entries (`203.0.113.7, 2001:db8::1`): each an address, alone or with a port
    /// (`192.0.2.1:4711`, `[2001:db8::1]:4711`); anything else is `.unusable`. Nothing is quoted in this header,
    /// so one bad entry spoils no other.
    private static func xForwardedForLine(_ bytes: ArraySlice<UInt8>) -> [Hop] {
        bytes.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).compactMap { entry in
            let isText = { (byte: UInt8) in byte != space && byte != tab }
            guard let first = entry.firstIndex(where: isText), let last = entry.lastIndex(where: isText) else { return nil }
            return node(entry[first...last], bareIPv6: true).map(Hop.address) ?? .unusable
        }
    }

    /// A node (RFC 7239 §6): an IPv4 address or a bracketed IPv6 one, each with an optional port (digits, or an
    /// obfuscated `_port`). `unknown` and obfuscated names are no address. RFC 7239 brackets every IPv6 address;
    /// `X-Forwarded-For` writes them bare (`bareIPv6`).
    static func node(_ text: ArraySlice<UInt8>, bareIPv6: Bool) -> IPAddress? {
        guard text.count <= 2 + IPAddress.maxTextLength + 1 + 16 else { return nil }
        var host = text
        var port: ArraySlice<UInt8>?
        if text.first == UInt8(ascii: "[") {
            guard let close = text.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.first == UInt8(ascii: ":") else { return nil }
                port = rest.dropFirst()
            }
            // Only IPv6 goes in brackets.
            guard host.contains(UInt8(ascii: ":")) else { return nil }
        } else {
            let colons = text.count { $0 == UInt8(ascii: ":") }
            if colons == 1 {
                let colon = text.firstIndex(of: UInt8(ascii: ":"))!
                host = text[..<colon]
                port = text[text.index(after: colon)...]
            } else if colons > 1 && !bareIPv6 {
                return nil
            }
        }
        if let port, !isPort(port) { return nil }
        guard let address = IPAddress(String(decoding: host, as: UTF8.self)) else { return nil }
        // A bare IPv4 spelling must not have parsed as IPv6, nor the other way round.
        if port != nil && text.first != UInt8(ascii: "[") && !address.isIPv4 { return nil }
        return address
    }

    /// `1*5DIGIT`, or an obfuscated port (`_` and letters, digits, `.`, `_`, `-`).
    private static func isPort(_ text: ArraySlice<UInt8>) -> Bool {
        if text.first == UInt8(ascii: "_") { return text.count > 1 && text.dropFirst().allSatisfy(isObfuscatedCharacter) }
        return (1...5).contains(text.count) && text.allSatisfy(isDigit)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
    private static func isAlpha(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
    private static func isObfuscatedCharacter(_ byte: UInt8) -> Bool {
        isAlpha(byte) || isDigit(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }
    /// RFC 9110's `tchar`.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        isAlpha(byte) || isDigit(byte) || Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
    }
    fileprivate static let space = UInt8(ascii: " ")
    fileprivate static let tab = UInt8(ascii: "\t")

    /// A cursor over one header line's bytes.
    private struct Reader {
        private let bytes: ArraySlice<UInt8>
        private var index: ArraySlice<UInt8>.Index

        init(_ bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            index = bytes.startIndex
        }

        var atEnd: Bool { index == bytes.endIndex }

        mutating func skipSpaces() {
            while !atEnd, bytes[index] == space || bytes[index] == tab { index += 1 }
        }

        /// Takes `byte` if it comes next.
        mutating func take(_ byte: UInt8) -> Bool {
            guard !atEnd, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// `forwarded-element = [ pair ] *( ";" [ pair ] )`, `pair = token "=" value`: the hop its one `for`
        /// names (`.unusable` when it names none), or nil on a syntax error or a repeated parameter.
        mutating func forwardedElement() -> Hop? {
            var names: Set<[UInt8]> = []
            var hop: Hop = .unusable
            repeat {
                skipSpaces()
                if atEnd || bytes[index] == UInt8(ascii: ",") || bytes[index] == UInt8(ascii: ";") { continue }
                guard let name = token(), take(UInt8(ascii: "=")), let value = token() ?? quotedString() else { return nil }
                let lowered = name.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 + 32 : $0 }
                // Each parameter at most once per element (RFC 7239 §4).
                guard names.insert(lowered).inserted else { return nil }
                if lowered == Array("for".utf8) { hop = ForwardedChain.node(ArraySlice(value), bareIPv6: false).map(Hop.address) ?? .unusable }
                skipSpaces()
            } while take(UInt8(ascii: ";"))
            return hop
        }

        /// `1*tchar`, or nil.
        private mutating func token() -> [UInt8]? {
            let start = index
            while !atEnd, ForwardedChain.isTokenCharacter(bytes[index]) { index += 1 }
            return start == index ? nil : Array(bytes[start..<index])
        }

        /// A quoted string's content, its quoted pairs resolved; nil (and nothing taken) when none comes, or
        /// when it is not closed or holds a control character.
        private mutating func quotedString() -> [UInt8]? {
            let start = index
            guard take(UInt8(ascii: "\"")) else { return nil }
            var content: [UInt8] = []
            while !atEnd {
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\"") { return content }
                if byte == UInt8(ascii: "\\") {
                    guard !atEnd, Self.isQuotable(bytes[index]) else { break }
                    content.append(bytes[index])
                    index += 1
                } else if Self.isQuotable(byte) {
                    content.append(byte)
                } else {
                    break
                }
            }
            index = start
            return nil
        }

        /// HTAB, SP, a visible character or obs-text: what a quoted string may hold.
        private static func isQuotable(_ byte: UInt8) -> Bool { byte == tab || byte >= 0x20 && byte != 0x7f }
    }
}
