import PeezBasics

/// What an 8-byte identifier names: a key (``KeyID``) or an issued card (``TokenID``). One implementation, two
/// types that cannot be mixed up.
public protocol EightByteIDKind: Sendable {}

/// An 8-byte identifier written as 16 lower-case hex digits.
public struct EightByteID<Kind: EightByteIDKind>: Hashable, Sendable, CustomStringConvertible {
    /// The length of every such identifier, in bytes.
    public static var byteCount: Int { 8 }
    /// The 8 bytes.
    public let bytes: [UInt8]

    /// An identifier from exactly 8 bytes, or nil.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = bytes
    }

    /// An identifier from 16 hex digits, or nil.
    public init?(hex: String) {
        guard let bytes = Hex.decode(hex) else { return nil }
        self.init(bytes: bytes)
    }

    /// The identifier as 16 lower-case hex digits.
    public var hex: String { Hex.encode(bytes) }
    public var description: String { hex }
}

/// Keys: a key id (`kid`) is the first 8 bytes of SHA-256 over the raw 32-byte Ed25519 public key, a hint for
/// finding keys, not an identity (two keys may share one).
public enum KeyIDKind: EightByteIDKind {}
/// A key id (`kid`).
public typealias KeyID = EightByteID<KeyIDKind>

/// Issued cards: a token id (`cti`) is 8 random bytes naming one card, the handle for revoking it.
public enum TokenIDKind: EightByteIDKind {}
/// A token id (`cti`).
public typealias TokenID = EightByteID<TokenIDKind>

extension EightByteID where Kind == TokenIDKind {
    /// A fresh token id from the system's cryptographically secure generator.
    public static func random() -> TokenID {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt64
        return TokenID(bytes: (0..<8).map { UInt8(truncatingIfNeeded: value >> UInt64(56 - $0 * 8)) })!
    }
}
