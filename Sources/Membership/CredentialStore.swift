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
    /// Renames a credential; false if there is none with `id`.
    func renameCredential(id: UUID, label: String) async throws -> Bool
    /// Revokes a credential at `now`, once (a second revocation keeps the first time); false if there is none.
    func revokeCredential(id: UUID, now: Int64) async throws -> Bool
    /// Sets when a credential stops being accepted by itself (never later than an end already set).
    func expireCredential(id: UUID, at time: Int64) async throws -> Bool
    /// Records a use in the hour starting at `hour`, if no later use is recorded.
    func noteCredentialUse(id: UUID, hour: Int64) async throws
}

/// One-time enrolment codes.
public protocol EnrolmentCodeStore: Sendable {
    func saveEnrolmentCode(_ code: EnrolmentCode) async throws
    /// Exchanges a code for `credential` (stored as the code's vendor's), atomically: the code is marked used and
    /// the credential stored in one transaction, so of two devices racing with one code exactly one is enrolled.
    /// Returns the refusal when the code is unknown, used, expired or withdrawn.
    func redeemEnrolmentCode(hash: String, now: Int64, credential: APICredential) async throws -> Result<APICredential, EnrolmentRefusal>
    /// Withdraws every unused code of a vendor (its access cut off); returns how many.
    func withdrawEnrolmentCodes(vendorID: UUID, now: Int64) async throws -> Int
}

/// The audit trail of administrative actions, and the sales refused to withdrawn credentials.
public protocol AuditStore: Sendable {
    /// Appends an entry (its seq is given by the store) and returns it as stored.
    @discardableResult
    func appendAudit(_ entry: AuditEntry) async throws -> AuditEntry
    /// Entries after `seq`, oldest first, at most `limit`.
    func audit(after seq: Int64, limit: Int) async throws -> [AuditEntry]
    func recordRefusedSale(_ sale: RefusedSale) async throws
    /// The newest refused sales first, at most `limit`.
    func refusedSales(limit: Int) async throws -> [RefusedSale]
}
