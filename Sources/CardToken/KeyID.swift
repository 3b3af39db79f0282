import PeezBasics

/// A key id (`kid`): the first 8 bytes of SHA-256 over the raw 32-byte Ed25519 public key.
///
/// A kid is a hint for finding keys, not an identity: two keys may share one.
public struct KeyID: Hashable, Sendable, CustomStringConvertible {
    /// The length of every kid, in bytes.
    public static let byteCount = 8
    /// The 8 bytes.
    public let bytes: [UInt8]

    /// A kid from exactly 8 bytes, or nil.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = bytes
    }

    /// A kid from 16 hex digits, or nil.
    public init?(hex: String) {
        guard let bytes = Hex.decode(hex) else { return nil }
        self.init(bytes: bytes)
    }

    /// The kid as 16 lower-case hex digits.
    public var hex: String { Hex.encode(bytes) }
    public var description: String { hex }
}
