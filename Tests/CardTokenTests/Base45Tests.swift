import CardToken
import Testing

@Suite("Base45 (RFC 9285)")
struct Base45Tests {
    @Test(
        "the RFC's examples encode and decode",
        arguments: [("AB", "BB8"), ("Hello!!", "%69 VD92EX0"), ("base-45", "UJCLQE7W581"), ("ietf!", "QED8WEX0")]
    )
    func rfcExamples(plain: String, encoded: String) throws {
        #expect(Base45.encode(Array(plain.utf8)) == encoded)
        #expect(try Base45.decode(Array(encoded.utf8)) == Array(plain.utf8))
    }

    @Test func everyByteValueRoundTrips() throws {
        let bytes = (0...255).map(UInt8.init) + [0xFF, 0xFF, 0x00]
        #expect(try Base45.decode(Array(Base45.encode(bytes).utf8)) == bytes)
    }

    @Test func rejectsLengthOneModuloThree() {
        #expect(throws: CardTokenError(.invalidBase45, "")) { try Base45.decode(Array("BB8B".utf8)) }
    }

    @Test func rejectsLowerCase() {
        #expect(throws: CardTokenError(.invalidBase45, "")) { try Base45.decode(Array("bb8".utf8)) }
    }

    @Test func rejectsTripletAbove65535() {
        #expect(throws: CardTokenError(.invalidBase45, "")) { try Base45.decode(Array("GGW".utf8)) }
    }

    @Test func rejectsFinalPairAbove255() {
        #expect(throws: CardTokenError(.invalidBase45, "")) { try Base45.decode(Array("::".utf8)) }
    }

    @Test func rejectsNonASCIIBytes() {
        #expect(throws: CardTokenError(.invalidBase45, "")) { try Base45.decode([0xC3, 0xA9, 0x41]) }
    }
}
