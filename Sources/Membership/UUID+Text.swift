public import Foundation

/// UUIDs as the API reads and writes them: exactly RFC 9562's 36 characters in, lower case out.
extension UUID {
    /// The UUID spelt by `text`, which must be exactly 36 characters of RFC 9562's grammar: 32 hex digits (either
    /// case) in groups of 8-4-4-4-12 joined by hyphens. Anything more or less (a NUL and junk after a valid
    /// UUID, braces, spaces) is nil: Foundation's own parser stops at a NUL and would take the prefix.
    public init?(strictText text: some StringProtocol) {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return nil }
        for (index, byte) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
            } else {
                guard (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte) else { return nil }
            }
        }
        self.init(uuidString: String(decoding: bytes, as: UTF8.self))
    }

    /// The UUID in lower case, as RFC 9562 recommends and every answer of the API writes it.
    public var lowercasedText: String { uuidString.lowercased() }
}
