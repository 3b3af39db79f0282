public import Foundation
import PeezBasics

/// A one-time code that enrols a device for a vendor: short-lived, used once, stored only as its SHA-256. It is
/// carried in a link or a QR code, never typed, so it can be long: 128 random bits.
public struct EnrolmentCode: Sendable, Hashable {
    /// Lower-case hex SHA-256 of the code.
    public var codeHash: String
    public var vendorID: UUID
    /// Who asked for it (the label of the credential that asked, or "peez admin").
    public var createdBy: String
    /// The credential that asked for it, when one did (a shop's device, an admin's secret): the code dies with it.
    public var createdByCredentialID: UUID?
    /// The name the device it enrols carries, when the code was made for one ("Karim's phone").
    public var label: String?
    public var createdAt: Int64
    public var expiresAt: Int64
    /// When it was exchanged for a credential, and which; nil until then.
    public var usedAt: Int64?
    public var credentialID: UUID?
    /// When it was withdrawn unused (its vendor's access cut off); nil while it is not.
    public var withdrawnAt: Int64?

    public init(codeHash: String, vendorID: UUID, createdBy: String, createdByCredentialID: UUID? = nil, createdAt: Int64, expiresAt: Int64) {
        self.codeHash = codeHash
        self.vendorID = vendorID
        self.createdBy = createdBy
        self.createdByCredentialID = createdByCredentialID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    /// How long a code lives unless asked otherwise, and at most: 10 minutes, 24 hours.
    public static let defaultLifetime: Int64 = 600
    public static let maxLifetime: Int64 = 86_400

    /// A new code: `pz` and 26 characters of lower-case base32 (RFC 4648 alphabet) over 16 random bytes.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<2).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64) { Array($0) } }
        return "pz" + base32(bytes)
    }

    /// Whether `text` has a code's shape (so a hostile string is refused before any hashing or query).
    public static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == 28 && text.hasPrefix("pz")
            && text.utf8.dropFirst(2).allSatisfy { (0x61...0x7A).contains($0) || (0x32...0x37).contains($0) }
    }

    static func base32(_ bytes: [UInt8]) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
        var out = ""
        var buffer = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[(buffer >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { out.append(alphabet[(buffer << (5 - bits)) & 31]) }
        return out
    }
}

/// Why a code cannot be exchanged.
public enum EnrolmentRefusal: String, Error, Sendable, Hashable {
    /// No code like it was ever given (or it was mistyped).
    case unknown
    /// It was exchanged already: each code enrols one device.
    case used
    /// Its lifetime ended before it was used.
    case expired
    /// Its vendor's credentials were cut off, or the code was withdrawn.
    case revoked
}
