import Foundation
import PeezBasics
import Testing

@Suite("Hex")
struct HexTests {
    @Test func uuidTextIsFoundationsUUIDStringInEitherCase() {
        for _ in 0..<1_000 {
            let uuid = UUID()
            let bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
            #expect(Hex.uuidText(bytes, uppercase: true) == uuid.uuidString)
            #expect(Hex.uuidText(bytes) == uuid.uuidString.lowercased())
        }
    }
}
