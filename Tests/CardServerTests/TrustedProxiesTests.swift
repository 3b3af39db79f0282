import CardServer
import Testing

/// `--trusted-proxies`: addresses and CIDR ranges, IPv4 and IPv6, read strictly, each refusal saying which entry
/// and why.
@Suite("Trusted proxies")
struct TrustedProxiesTests {
    @Test func addressesAndRangesOfBothFamiliesAreListed() throws {
        let proxies = try TrustedProxies(parsing: " 127.0.0.1, ::1 ,10.0.0.0/8,fd00::/8,192.0.2.0/24")
        #expect(proxies.description == "127.0.0.1/32,::1/128,10.0.0.0/8,fd00::/8,192.0.2.0/24")
        for inside in ["127.0.0.1", "::1", "10.255.0.3", "fdab::1", "192.0.2.255", "::ffff:10.1.2.3"] {
            #expect(proxies.contains(IPAddress(inside)!), "\(inside)")
        }
        for outside in ["127.0.0.2", "::2", "11.0.0.1", "fe00::1", "192.0.3.0", "::ffff:11.1.2.3", "::a00:1"] {
            #expect(!proxies.contains(IPAddress(outside)!), "\(outside)")
        }
        #expect(try TrustedProxies(parsing: "0.0.0.0/0").contains(IPAddress("203.0.113.7")!))
        #expect(try !TrustedProxies(parsing: "0.0.0.0/0").contains(IPAddress("2001:db8::1")!), "an IPv4 range holds no IPv6 address")
        #expect(try TrustedProxies(parsing: "::ffff:10.0.0.0/104").description == "10.0.0.0/8", "an IPv4-mapped range is its IPv4 range")
    }

    @Test func eachBadEntryIsRefusedSayingWhy() {
        let refusals: [(String, String)] = [
            ("localhost", "'localhost' is not an IP address or CIDR range; host names are not looked up"),
            ("10.0.0.1/8", "'10.0.0.1/8' has bits set past its prefix: write the network, as 10.0.0.0/8"),
            ("10.0.0.0/33", "'10.0.0.0/33' has a prefix length that is not a whole number from 0 to 32"),
            ("::/129", "'::/129' has a prefix length that is not a whole number from 0 to 128"),
            ("10.0.0.0/", "'10.0.0.0/' has a prefix length"),
            ("10.0.0.0/+8", "'10.0.0.0/+8' has a prefix length"),
            ("127.0.0.1:8080", "'127.0.0.1:8080' is not an IP address"),
            ("[::1]", "'[::1]' is not an IP address"),
            ("fe80::1%eth0", "'fe80::1%eth0' is not an IP address"),
            ("::ffff:10.0.0.0/64", "'::ffff:10.0.0.0/64' is an IPv4-mapped range shorter than /96"),
            ("127.0.0.1,,::1", "an entry is empty"),
            ("127.0.0.1,", "an entry is empty"),
            (Array(repeating: "127.0.0.1", count: 65).joined(separator: ","), "it has 65 entries, at most 64"),
        ]
        for (text, reason) in refusals {
            #expect(throws: TrustedProxiesError.self, "\(text)") { try TrustedProxies(parsing: text) }
            do {
                _ = try TrustedProxies(parsing: text)
            } catch {
                #expect(String(describing: error).hasPrefix(reason), "\(text): \(error)")
            }
        }
    }

    @Test func anAddressHasOneSpellingAndOnlyAddressesParse() {
        #expect(IPAddress("2001:DB8:0:0:0:0:0:1")?.description == "2001:db8::1")
        #expect(IPAddress("::ffff:192.0.2.1")?.description == "192.0.2.1", "IPv4-mapped: the IPv4 address")
        #expect(IPAddress("192.0.2.1")?.isIPv4 == true)
        for text in [
            "", "1", "1.2.3", "1.2.3.4.5", "01.2.3.4", "1.2.3.256", " 1.2.3.4", "1.2.3.4\u{0}", "g::1", "1:2:3:4:5:6:7:8:9",
            String(repeating: "1", count: 46),
        ] {
            #expect(IPAddress(text) == nil, "\(text)")
        }
    }
}
