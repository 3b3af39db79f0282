import Foundation
import PeezBasics
import Testing

@Suite("Hex")
struct HexTests {
    @Test func encodeWritesTwoLowerCaseDigitsPerByteInOrder() {
        #expect(Hex.encode([]) == "")
        #expect(Hex.encode(0...255) == (0...255).map { String(format: "%02x", $0) }.joined())
        for _ in 0..<100 {
            let bytes = (0..<Int.random(in: 1...64)).map { _ in UInt8.random(in: 0...255) }
            #expect(Hex.encode(bytes) == bytes.map { String(format: "%02x", $0) }.joined())
            #expect(Hex.decode(Hex.encode(bytes)) == bytes)
        }
    }

    @Test func uuidTextIsFoundationsUUIDStringInEitherCase() {
        for _ in 0..<1_000 {
            let uuid = UUID()
            let bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
            #expect(Hex.uuidText(bytes, uppercase: true) == uuid.uuidString)
            #expect(Hex.uuidText(bytes) == uuid.uuidString.lowercased())
        }
    }
}
