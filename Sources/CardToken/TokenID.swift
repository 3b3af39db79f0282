import PeezBasics

/// A token id (`cti`): 8 random bytes naming one issued card, the handle for revoking it.
public struct TokenID: Hashable, Sendable, CustomStringConvertible {
    /// The length of every token id, in bytes.
    public static let byteCount = 8
    /// The 8 bytes.
    public let bytes: [UInt8]

    /// A token id from exactly 8 bytes, or nil.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = bytes
    }

    /// A token id from 16 hex digits, or nil.
    public init?(hex: String) {
        guard let bytes = Hex.decode(hex) else { return nil }
        self.init(bytes: bytes)
    }

    /// A fresh token id from the system's cryptographically secure generator.
    public static func random() -> TokenID {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt64
        return TokenID(unchecked: (0..<8).map { UInt8(truncatingIfNeeded: value >> UInt64(56 - $0 * 8)) })
    }

    private init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    /// The token id as 16 lower-case hex digits.
    public var hex: String { Hex.encode(bytes) }
    public var description: String { hex }
}
