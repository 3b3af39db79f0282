public import Foundation

/// API credentials, kept as hashes of their secrets, with their lifecycle.
public protocol CredentialStore: Sendable {
    /// Stores the credential; a credential with the same secret already stored makes this do nothing.
    func saveCredential(_ credential: APICredential) async throws
    /// The credential of a secret's hash, revoked or not (the caller decides what a revoked one means).
    func credential(secretHash: String) async throws -> APICredential?
    func credential(id: UUID) async throws -> APICredential?
    /// Every credential of `role` (all roles when nil) and, when given, of one vendor, oldest first.
    func credentials(role: Role?, vendorID: UUID?) async throws -> [APICredential]
    /// Records a use in the hour starting at `hour`, if no later use is recorded.
    func noteCredentialUse(id: UUID, hour: Int64) async throws
    /// Calls `handler` with the secret hash of every credential revoked or given an end by any process sharing the
    /// database, as the database announces it (PostgreSQL), and with nil when announcements may have been missed
    /// (the listener was down): forget every credential held then. A database that announces nothing never calls.
    func onCredentialChange(_ handler: @escaping @Sendable (_ secretHash: String?) -> Void)
    /// Runs `body` in one durable transaction over credentials, codes, cut-offs and the audit trail: everything
    /// it reads stays locked and everything it writes commits together (or nothing, if it throws).
    func inCredentialTransaction<T: Sendable>(_ body: @Sendable (any CredentialTransaction) async throws -> T) async throws -> T
}

/// The audit trail of administrative actions, and the sales refused to withdrawn credentials.
public protocol AuditStore: Sendable {
    /// Appends an entry (its seq is given by the store) and returns it as stored.
    @discardableResult
    func appendAudit(_ entry: AuditEntry) async throws -> AuditEntry
    /// Entries after `seq`, oldest first, at most `limit`.
    func audit(after seq: Int64, limit: Int) async throws -> [AuditEntry]
    /// Keeps `sale` once per credential and key, unless the key (in `keyScope`) was already sold — the sale
    /// stands — or the credential already has `maxPerCredential` refused sales kept; decided in the statement that
    /// writes it.
    func recordRefusedSale(_ sale: RefusedSale, keyScope: String, maxPerCredential: Int) async throws
    /// The newest refused sales first, at most `limit`; only those before `seq` when it is given (the `seq` of the
    /// last one of the page before).
    func refusedSales(before seq: Int64?, limit: Int) async throws -> [RefusedSale]
}
