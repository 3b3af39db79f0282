import CardToken
import Testing

@Suite("Strict CBOR decoding")
struct CBORDecoderTests {
    private func rejects(_ bytes: [UInt8], _ code: CardTokenError.Code, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(throws: CardTokenError(code, ""), sourceLocation: sourceLocation) { try CBORDecoder.decode(bytes) }
    }

    @Test func deterministicItemsRoundTrip() throws {
        let values: [CBORValue] = [
            .unsigned(0), .unsigned(23), .unsigned(24), .unsigned(255), .unsigned(256), .unsigned(65_535),
            .unsigned(65_536), .unsigned(UInt64(UInt32.max)), .unsigned(UInt64(UInt32.max) + 1), .unsigned(.max),
            .negative(0), .int(-65_537), .bytes([]), .bytes([1, 2, 3]), .text(""), .text("أحمد"),
            .array([.unsigned(1), .array([.null, .bool(true), .bool(false)])]),
            .map([CBORMapEntry(.int(-1), .unsigned(1)), CBORMapEntry(.unsigned(10), .text("x")), CBORMapEntry(.unsigned(1), .null)]),
            .tagged(18, .array([])),
        ]
        for value in values {
            let encoded = CBOREncoder.encode(value)
            let decoded = try CBORDecoder.decode(encoded)
            #expect(CBOREncoder.encode(decoded) == encoded)
        }
    }

    @Test func encoderSortsMapKeysBytewise() {
        let map = CBORValue.map([CBORMapEntry(.int(-65_537), .null), CBORMapEntry(.unsigned(7), .null), CBORMapEntry(.unsigned(1), .null)])
        #expect(CBOREncoder.encode(map) == [0xA3, 0x01, 0xF6, 0x07, 0xF6, 0x3A, 0x00, 0x01, 0x00, 0x00, 0xF6])
    }

    @Test func trailingBytesAreForbidden() { rejects([0x01, 0x00], .trailingBytes) }
    @Test func rejectsIndefiniteLengthArray() { rejects([0x9F, 0x01, 0xFF], .indefiniteLength) }
    @Test func rejectsIndefiniteLengthByteString() { rejects([0x5F, 0x41, 0x00, 0xFF], .indefiniteLength) }
    @Test func rejectsStrayBreak() { rejects([0xFF], .indefiniteLength) }
    @Test func rejectsNonShortestInteger() { rejects([0x18, 0x17], .nonDeterministicEncoding) }
    @Test func rejectsNonShortestLength() { rejects([0x59, 0x00, 0x01, 0x00], .nonDeterministicEncoding) }
    @Test func rejectsUnsortedMapKeys() { rejects([0xA2, 0x02, 0x00, 0x01, 0x00], .nonDeterministicEncoding) }
    @Test func rejectsDuplicateMapKeys() { rejects([0xA2, 0x01, 0x00, 0x01, 0x00], .nonDeterministicEncoding) }
    @Test func rejectsFloats() { rejects([0xF9, 0x3C, 0x00], .unsupportedCBOR) }
    @Test func rejectsUndefined() { rejects([0xF7], .unsupportedCBOR) }
    @Test func rejectsReservedAdditionalInformation() { rejects([0x1C], .unsupportedCBOR) }
    @Test func rejectsInvalidUTF8() { rejects([0x62, 0xC3, 0x28], .invalidUTF8) }
    @Test func rejectsTruncatedArgument() { rejects([0x19, 0x01], .truncated) }
    @Test func rejectsLengthBeyondTheBytesLeft() { rejects([0x5A, 0xFF, 0xFF, 0xFF, 0xFF], .truncated) }
    @Test func rejectsAbsurdArrayCountBeforeAllocating() { rejects([0x9B] + [UInt8](repeating: 0xFF, count: 8), .truncated) }
    @Test func rejectsAbsurdMapCountBeforeAllocating() { rejects([0xBA, 0x7F, 0xFF, 0xFF, 0xFF, 0x01], .truncated) }

    @Test func acceptsNestingFourDeep() throws {
        #expect(try CBORDecoder.decode([0x81, 0x81, 0x81, 0x81, 0x01]) != .null)
    }

    @Test func rejectsNestingFiveDeep() { rejects([0x81, 0x81, 0x81, 0x81, 0x81, 0x01], .depthLimitExceeded) }
    @Test func tagsCountTowardsDepth() { rejects([0xD2, 0x81, 0x81, 0x81, 0x81, 0x01], .depthLimitExceeded) }

    @Test func rejectsInputOverTheSizeLimit() {
        rejects([0x59, 0x07, 0xFE] + [UInt8](repeating: 0, count: 2046), .sizeLimitExceeded)
    }

    @Test func acceptsInputAtTheSizeLimit() throws {
        #expect(try CBORDecoder.decode([0x59, 0x07, 0xFD] + [UInt8](repeating: 0, count: 2045)) == .bytes([UInt8](repeating: 0, count: 2045)))
    }
}
