import Testing

@testable import CardServer

/// Reading the client's address from a trusted proxy's `Forwarded` (RFC 7239) or `X-Forwarded-For` header: from
/// the right, past trusted proxies, to the first address that is not one; anything unbelievable ends the walk at
/// the last address that could be believed, and a peer that is not trusted is the client whatever it sends.
@Suite("Forwarded chain")
struct ForwardedChainTests {
    static let proxy = IPAddress("10.0.0.2")!
    static let trusted = try! TrustedProxies(parsing: "10.0.0.0/8,::1,127.0.0.1")

    /// The client as the service would see it from `peer`.
    static func client(
        peer: IPAddress = proxy,
        forwarded: [String] = [],
        xForwardedFor: [String] = [],
        trusted: TrustedProxies = trusted
    ) -> String {
        ForwardedChain(forwarded: forwarded, xForwardedFor: xForwardedFor).client(peer: peer, trusted: trusted).description
    }

    // MARK: RFC 7239's examples

    @Test func theExamplesOfRFC7239SectionsFourAndSevenAreRead() {
        #expect(Self.client(forwarded: [#"for="_gazonk""#]) == "10.0.0.2", "an obfuscated name is no address: the proxy is the last believed")
        #expect(Self.client(forwarded: [#"For="[2001:db8:cafe::17]:4711""#]) == "2001:db8:cafe::17", "names are case-insensitive; port dropped")
        #expect(Self.client(forwarded: ["for=192.0.2.60;proto=http;by=203.0.113.43"]) == "192.0.2.60")
        #expect(Self.client(forwarded: ["for=192.0.2.43, for=198.51.100.17"]) == "198.51.100.17", "the nearest untrusted hop")
        #expect(Self.client(forwarded: ["for=192.0.2.43", "for=198.51.100.17;by=203.0.113.60;proto=http;host=example.com"]) == "198.51.100.17")
        #expect(Self.client(forwarded: [#"for=192.0.2.43,for="[2001:db8:cafe::17]",for=unknown"#]) == "10.0.0.2", "unknown ends the walk")
        #expect(Self.client(forwarded: [#"for="192.0.2.43:47011""#]) == "192.0.2.43", "an IPv4 address with its port, quoted")
        #expect(Self.client(forwarded: [#"for="[2001:db8::1]:_hidden""#]) == "2001:db8::1", "an obfuscated port")
    }

    @Test func trustedProxiesAreSkippedFromTheRightToTheFirstUntrustedAddress() {
        #expect(Self.client(xForwardedFor: ["203.0.113.7, 10.1.1.1, 10.0.0.9"]) == "203.0.113.7")
        #expect(Self.client(forwarded: ["for=203.0.113.7, for=10.1.1.1", #"for="[::1]""#]) == "203.0.113.7", "across header lines")
        #expect(Self.client(xForwardedFor: ["10.1.1.1, 10.0.0.9"]) == "10.1.1.1", "every hop trusted: the farthest")
        #expect(Self.client(xForwardedFor: ["198.51.100.1", "203.0.113.7"]) == "203.0.113.7", "the last line is the nearest")
    }

    // MARK: Spoofing

    @Test func aPeerThatIsNoTrustedProxyIsTheClientWhateverItSends() {
        let stranger = IPAddress("203.0.113.66")!
        #expect(Self.client(peer: stranger, forwarded: ["for=198.51.100.1"]) == "203.0.113.66")
        #expect(Self.client(peer: stranger, xForwardedFor: ["198.51.100.1"]) == "203.0.113.66")
        #expect(Self.client(forwarded: ["for=198.51.100.1"], trusted: .none) == "10.0.0.2", "nothing is believed when no proxy is trusted")
    }

    @Test func addressesAClientPutsLeftOfWhatTheProxyAddedAreNotBelieved() {
        // As nginx's $proxy_add_x_forwarded_for writes it: the client's header, then the address nginx saw.
        #expect(Self.client(xForwardedFor: ["127.0.0.1, 198.51.100.9, 203.0.113.7"]) == "203.0.113.7")
        #expect(Self.client(xForwardedFor: ["10.0.0.1", "203.0.113.7"]) == "203.0.113.7", "a header line of its own changes nothing")
        // A client naming a trusted proxy as itself: the proxy's own entry is still the nearest untrusted one.
        #expect(Self.client(forwarded: ["for=10.0.0.5, for=203.0.113.7"]) == "203.0.113.7")
    }

    @Test func xForwardedForIsReadOnlyWhenNoForwardedHeaderCame() {
        #expect(Self.client(forwarded: ["for=198.51.100.1"], xForwardedFor: ["203.0.113.7"]) == "198.51.100.1")
        #expect(Self.client(forwarded: [], xForwardedFor: ["203.0.113.7"]) == "203.0.113.7")
    }

    // MARK: Values that name no believable address

    @Test func unknownObfuscatedAndGarbledValuesEndTheWalkAtTheLastBelievedAddress() {
        let proxyItself = "10.0.0.2"
        for value in [
            "for=unknown", "for=UNKNOWN", "for=_hidden", "for=", "for", "=1.2.3.4", "for=1.2.3.4 junk", #"for="1.2.3.4"#, #"for="1.2.3.4\"#,
            "for=2001:db8::1", #"for="2001:db8::1""#, #"for="[1.2.3.4]""#, #"for="[2001:db8::1"#, #"for="[2001:db8::1]x""#,
            #"for="[2001:db8::1]:123456""#, #"for="[2001:db8::1]:""#, #"for="1.2.3.4:_""#, "for=1.2.3.4;for=5.6.7.8", "proto=https",
            "for=localhost", "for=1.2.3.4.5", "for=01.2.3.4", "for=256.1.1.1", "for=1.2.3", "for=example.com", #"for="fe80::1%eth0""#,
            "for=\"1.2.3.4\u{0}\"", "for=1.2.3.4\u{0}", "for=\"[::1]\u{7f}\"",
        ] {
            #expect(Self.client(forwarded: [value]) == proxyItself, "\(value)")
        }
        for value in [
            "unknown", "_hidden", "1.2.3.4.5", "[1.2.3.4]", "2001:db8::1]:80", "1.2.3.4:123456", "1.2.3.4:", "host.example", "1.2.3.4 5.6.7.8",
        ] {
            #expect(Self.client(xForwardedFor: [value]) == proxyItself, "\(value)")
        }
    }

    @Test func aHopThatCannotBeBelievedHidesEveryAddressLeftOfIt() {
        #expect(Self.client(xForwardedFor: ["203.0.113.7, unknown, 10.0.0.9"]) == "10.0.0.9", "the last trusted hop before it")
        #expect(Self.client(forwarded: ["for=203.0.113.7, for=_secret"]) == "10.0.0.2")
        #expect(Self.client(forwarded: [#"for=203.0.113.7, for="unterminated, for=198.51.100.1"#]) == "10.0.0.2", "a quote never closed")
    }

    @Test func xForwardedForEntriesMayCarryPortsAndBrackets() {
        #expect(Self.client(xForwardedFor: ["203.0.113.7:4711"]) == "203.0.113.7")
        #expect(Self.client(xForwardedFor: ["[2001:db8::7]:4711"]) == "2001:db8::7")
        #expect(Self.client(xForwardedFor: ["[2001:db8::7]"]) == "2001:db8::7")
        #expect(Self.client(xForwardedFor: ["2001:DB8:0:0::7"]) == "2001:db8::7", "one spelling per address")
        #expect(Self.client(xForwardedFor: [" 203.0.113.7 ,\t,  "]) == "203.0.113.7", "spaces and empty entries")
    }

    @Test func quotedStringsAndSpacingFollowTheGrammar() {
        #expect(Self.client(forwarded: [#"for="\1\9\2.0.2.1""#]) == "192.0.2.1", "quoted pairs")
        #expect(Self.client(forwarded: [#"by="a,b;c=d";for=192.0.2.1"#]) == "192.0.2.1", "commas and semicolons inside quotes")
        #expect(Self.client(forwarded: [" for=192.0.2.1 ; proto=https ,, "]) == "192.0.2.1", "spaces around ; and , and empty elements")
        #expect(Self.client(forwarded: ["for=192.0.2.1;;proto=https"]) == "192.0.2.1", "an empty pair")
        #expect(Self.client(forwarded: [#"for="::ffff:192.0.2.1""#]) == "10.0.0.2", "IPv6 must be bracketed in Forwarded")
        #expect(Self.client(forwarded: [#"for="[::ffff:192.0.2.1]""#]) == "192.0.2.1", "an IPv4-mapped address is the IPv4 address")
    }

    // MARK: Bounds

    @Test func aChainPastItsHopBoundEndsWhereTheBoundIs() {
        let hops = (1...100).map { "10.9.\($0 / 250).\($0 % 250)" }
        let long = ["203.0.113.7, " + hops.joined(separator: ", ")]
        #expect(Self.client(xForwardedFor: long) == "10.9.0.71", "the \(ForwardedChain.maxHops)th hop from the right, the last believed")
        let short = ["203.0.113.7, " + hops.suffix(ForwardedChain.maxHops - 1).joined(separator: ", ")]
        #expect(Self.client(xForwardedFor: short) == "203.0.113.7")
    }

    @Test func hugeHeadersAreReadOnlyWithinTheirByteBound() {
        let junk = String(repeating: "a", count: 100_000)
        // X-Forwarded-For has no quoting: its last whole entries within the bound are still read.
        #expect(Self.client(xForwardedFor: [junk + ", 198.51.100.1, 203.0.113.7"]) == "203.0.113.7")
        #expect(Self.client(xForwardedFor: [junk + "203.0.113.7"]) == "10.0.0.2", "one entry past the bound is no entry")
        // Forwarded may quote anything: a line past the bound is not read at all.
        #expect(Self.client(forwarded: [#"for="\#(junk)", for=203.0.113.7"#]) == "10.0.0.2")
        #expect(Self.client(forwarded: [#"for="\#(junk)""#, "for=203.0.113.7"]) == "203.0.113.7", "the nearer lines within it are")
        let lines = Array(repeating: "", count: 100_000) + ["for=203.0.113.7"]
        #expect(Self.client(forwarded: lines) == "203.0.113.7", "a flood of empty lines costs a byte each")
        let quotes = String(repeating: #"\""#, count: 2_000)
        #expect(Self.client(forwarded: [#"by="\#(quotes)";for=203.0.113.7"#]) == "203.0.113.7")
    }

    @Test func arbitraryBytesNeverCrashTheReader() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array(#"for=[]:"\;, _.0123456789abcdef"#.utf8) + [0, 9, 0x7f, 0xff]
        for _ in 0..<2_000 {
            let bytes = (0..<Int.random(in: 0..<80, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            let text = String(decoding: bytes, as: UTF8.self)
            _ = Self.client(forwarded: [text, text])
            _ = Self.client(xForwardedFor: [text])
        }
    }
}
