import CardCrypto
public import Foundation
public import Membership

/// Creating credentials: the secret is returned once and only its hash is stored.
public enum Provisioning {
    /// A new credential of `role`; returns the secret to hand over.
    public static func createCredential(
        store: any VendorStore & CredentialStore,
        role: Role,
        vendorID: UUID? = nil,
        label: String,
        now: Int64
    ) async throws -> String {
        let secret = APISecret.generate(role: role)
        try await saveCredential(store: store, secret: secret, role: role, vendorID: vendorID, label: label, now: now)
        return secret
    }

    /// Stores the hash of a given secret (development mode's fixed demo secrets); a secret already stored is
    /// left as it is.
    public static func saveCredential(
        store: any VendorStore & CredentialStore,
        secret: String,
        role: Role,
        vendorID: UUID?,
        label: String,
        now: Int64
    ) async throws {
        let hash = APISecret.hash(secret, sha256: SHA256.hash)
        try await store.saveCredential(APICredential(id: UUID(), role: role, vendorID: vendorID, secretHash: hash, label: label, createdAt: now))
    }
}
