import CardToken
public import Foundation
import PeezBasics

/// Who may call the API.
public enum Role: String, Sendable, Codable, CaseIterable {
    /// Operators: everything, including vendors, cancellations and all activations.
    case admin
    /// The PEEZ backend: members, cards, subscriptions, verification.
    case backend
    /// A partner shop: activations as itself, verification.
    case vendor
}

/// An API secret's stored record. The secret itself is never stored, only its SHA-256.
public struct APICredential: Sendable, Hashable {
    public var id: UUID
    public var role: Role
    /// The shop a `vendor` credential acts as.
    public var vendorID: UUID?
    /// Lower-case hex SHA-256 of the secret.
    public var secretHash: String
    public var label: String
    public var createdAt: Int64

    public init(id: UUID, role: Role, vendorID: UUID?, secretHash: String, label: String, createdAt: Int64) {
        self.id = id
        self.role = role
        self.vendorID = vendorID
        self.secretHash = secretHash
        self.label = label
        self.createdAt = createdAt
    }
}

/// Generating and hashing bearer secrets.
public enum APISecret {
    /// A new secret: `peez_<role>_` and 43 characters of base64url over 32 random bytes (256 bits).
    public static func generate(role: Role) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<4).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64) { Array($0) } }
        let base64 = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return "peez_\(role.rawValue)_\(base64)"
    }

    /// The stored form of a secret, given a SHA-256 function (the domain does no cryptography itself).
    /// Secrets are 256-bit random values, so a single fast hash is enough: nothing to brute-force.
    public static func hash(_ secret: String, sha256: ([UInt8]) -> [UInt8]) -> String {
        Hex.encode(sha256(Array(secret.utf8)))
    }
}
