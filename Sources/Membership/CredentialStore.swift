/// API credentials, kept as hashes of their secrets.
public protocol CredentialStore: Sendable {
    /// Stores the credential; a credential with the same secret already stored makes this do nothing.
    func saveCredential(_ credential: APICredential) async throws
    func credential(secretHash: String) async throws -> APICredential?
}
