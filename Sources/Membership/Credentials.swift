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

/// An API secret's stored record: one device's or one system's credential. The secret itself is never stored,
/// only its SHA-256.
public struct APICredential: Sendable, Hashable {
    public var id: UUID
    public var role: Role
    /// The shop a `vendor` credential acts as.
    public var vendorID: UUID?
    /// Lower-case hex SHA-256 of the secret.
    public var secretHash: String
    /// What the credential is for, as the operator named it ("till 1", "Karim's phone").
    public var label: String
    public var createdAt: Int64
    /// Who made it: the label of the credential that asked, "peez admin" on the operator's machine, or
    /// "enrolment code" for a device that enrolled itself.
    public var createdBy: String
    /// The start of the hour it was last used in (kept coarse: a usage trail, not a tracker); nil if never.
    public var lastUsedAt: Int64?
    /// When it was revoked; nil while it is not.
    public var revokedAt: Int64?
    /// When it stops being accepted by itself (the old secret of a rotation, after its grace period); nil: never.
    public var expiresAt: Int64?
    /// The credential this one replaced by a rotation (the same device's or system's), if any: revoking that one
    /// revokes this one too.
    public var replacesID: UUID?

    public init(
        id: UUID,
        role: Role,
        vendorID: UUID?,
        secretHash: String,
        label: String,
        createdAt: Int64,
        createdBy: String = "",
        lastUsedAt: Int64? = nil,
        revokedAt: Int64? = nil,
        expiresAt: Int64? = nil,
        replacesID: UUID? = nil
    ) {
        self.id = id
        self.role = role
        self.vendorID = vendorID
        self.secretHash = secretHash
        self.label = label
        self.createdAt = createdAt
        self.createdBy = createdBy
        self.lastUsedAt = lastUsedAt
        self.revokedAt = revokedAt
        self.expiresAt = expiresAt
        self.replacesID = replacesID
    }

    /// Why the credential is no longer accepted at `now`, or nil while it is.
    public func refusal(now: Int64) -> CredentialRefusal? {
        if let revokedAt { return .revoked(at: revokedAt) }
        if let expiresAt, now >= expiresAt { return .expired(at: expiresAt) }
        return nil
    }

    /// `active`, `revoked`, or `expired` at `now`.
    public func state(now: Int64) -> String {
        switch refusal(now: now) {
        case nil: return "active"
        case .revoked: return "revoked"
        case .expired: return "expired"
        }
    }
}

/// Why a stored credential is refused.
public enum CredentialRefusal: Sendable, Hashable {
    /// The operator revoked it (a stolen phone, a shop that left).
    case revoked(at: Int64)
    /// Its rotation's grace period ended.
    case expired(at: Int64)

    /// Whether the operator revoked it (rather than a rotation ending it).
    public var isRevocation: Bool {
        if case .revoked = self { return true }
        return false
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
