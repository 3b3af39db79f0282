import CardCrypto
import Membership

/// The fixed API secrets `peez serve --development` loads and prints: published in the repository, so a service
/// that is not in development mode refuses them whatever its ledger holds (a ledger that once ran in development
/// keeps their credentials).
public enum DevelopmentSecrets {
    public static let admin = "peez_admin_DEVELOPMENT_ONLY_not_a_secret"
    public static let backend = "peez_backend_DEVELOPMENT_ONLY_not_a_secret"
    public static let vendor = "peez_vendor_DEVELOPMENT_ONLY_not_a_secret"

    /// The stored hashes of the three secrets, as credentials are looked up.
    public static let hashes: Set<String> = Set([admin, backend, vendor].map { APISecret.hash($0, sha256: SHA256.hash) })
}
