import CardCrypto
public import Foundation
public import Membership

/// Storing development mode's fixed credentials: only their secrets' hashes are stored.
public enum Provisioning {
    /// Stores the hash of a given secret (development mode's fixed demo secrets), made by "development data"; a
    /// secret already stored is left as it is.
    public static func saveCredential(
        store: any VendorStore & CredentialStore,
        secret: String,
        role: Role,
        vendorID: UUID?,
        label: String,
        now: Int64
    ) async throws {
        let hash = APISecret.hash(secret, sha256: SHA256.hash)
        try await store.saveCredential(
            APICredential(id: UUID(), role: role, vendorID: vendorID, secretHash: hash, label: label, createdAt: now, createdBy: "development data")
        )
    }
}
