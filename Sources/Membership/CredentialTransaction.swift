public import Foundation

/// One transaction over the credentials, the enrolment codes, the vendors' cut-offs and the audit trail, as the
/// credentials' use cases run them (``CredentialStore/inCredentialTransaction(_:)``). Every row read through it
/// is locked until the transaction ends (PostgreSQL: `FOR UPDATE`; SQLite: one writer at a time), so a guard
/// read here still holds when the write it allows commits; and what is written — the audit entry with it —
/// commits together, or not at all.
public protocol CredentialTransaction: Sendable {
    /// The credential, locked.
    func credential(id: UUID) async throws -> APICredential?
    /// The admin credentials that will still be accepted tomorrow (not revoked, no end set), locked.
    func lastingAdmins() async throws -> [APICredential]
    /// The credentials made by rotating `id`, and those made by rotating them, and so on, locked.
    func successors(of id: UUID) async throws -> [APICredential]
    /// Every credential of a vendor, locked.
    func credentials(ofVendor vendorID: UUID) async throws -> [APICredential]
    /// The vendor's standing, locked (a cut-off and an enrolment for the vendor take turns on it); nil when there
    /// is no such vendor.
    func vendorStanding(id: UUID) async throws -> VendorStanding?
    func insert(_ credential: APICredential) async throws
    func insert(_ vendor: Vendor) async throws
    func rename(credential id: UUID, label: String) async throws
    /// Revokes the credentials (those already revoked keep their time).
    func revoke(credentials ids: [UUID], at time: Int64) async throws
    /// Sets when a credential stops being accepted (never later than an end already set).
    func expire(credential id: UUID, at time: Int64) async throws
    func insert(_ code: EnrolmentCode) async throws
    /// The code of that hash, locked when `locking` (read it unlocked first to lock its vendor before it: the
    /// order a cut-off takes them in).
    func enrolmentCode(hash: String, locking: Bool) async throws -> EnrolmentCode?
    func markUsed(code hash: String, at time: Int64, by credentialID: UUID) async throws
    /// Withdraws the unused codes of `vendorID` (when given) and those made by one of `creators`; how many.
    func withdrawCodes(ofVendor vendorID: UUID?, madeBy creators: [UUID], at time: Int64) async throws -> Int
    /// Records that the vendor's access was cut off at `time`: no code made before then enrols a device.
    func markCutOff(vendor vendorID: UUID, at time: Int64) async throws
    func appendAudit(_ entry: AuditEntry) async throws
}

/// A vendor as a credential transaction sees it.
public struct VendorStanding: Sendable, Hashable {
    /// When its access was last cut off; nil if never.
    public var cutOffAt: Int64?

    public init(cutOffAt: Int64?) {
        self.cutOffAt = cutOffAt
    }
}
