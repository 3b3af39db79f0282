public import Foundation

/// One administrative action, as the audit trail keeps it: append-only, never edited or removed.
public struct AuditEntry: Sendable, Hashable {
    /// Its place in the trail, from 1 (given by the store).
    public var seq: Int64
    public var at: Int64
    /// Who: the label of the credential that acted ("peez admin" on the operator's machine), and its id when a
    /// credential acted.
    public var actor: String
    public var actorCredentialID: UUID?
    /// From where: the client's address, or "local" for the command line.
    public var address: String
    /// What: a verb such as `credential.revoke`, and the thing it acted on (a credential's or vendor's id).
    public var action: String
    public var target: String
    /// Anything more worth keeping (a new label, a grace period), never a secret: in English, as the command
    /// line shows it.
    public var detail: String
    /// The same facts one by one, by name, for a reader in another language (the console): empty when the
    /// action says it all; nil for entries written before they were kept.
    public var values: [AuditValue]?

    public init(
        seq: Int64 = 0,
        at: Int64,
        actor: String,
        actorCredentialID: UUID?,
        address: String,
        action: String,
        target: String,
        detail: String,
        values: [AuditValue]? = []
    ) {
        self.seq = seq
        self.at = at
        self.actor = actor
        self.actorCredentialID = actorCredentialID
        self.address = address
        self.action = action
        self.target = target
        self.detail = detail
        self.values = values
    }
}

/// One fact of an audit entry's detail: its name (`role`, `label`, `grace_seconds`, …) and its value as written
/// in the entry's English detail.
public struct AuditValue: Sendable, Hashable, Codable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// A sale sent with a credential that was no longer accepted (a stolen phone's pending sales, retried later):
/// refused, and kept here so the operator can see what the member paid and make it right.
public struct RefusedSale: Sendable, Hashable {
    /// Its place in the list, given by the store (0 until kept): the cursor that pages through it.
    public var seq: Int64
    public var at: Int64
    public var credentialID: UUID
    public var vendorID: UUID?
    /// The sale's Idempotency-Key, and what the request asked for, as far as it could be read.
    public var idempotencyKey: String
    public var membershipID: String?
    public var months: Int?
    public var amountDZD: Int?
    public var reason: String

    public init(
        at: Int64,
        credentialID: UUID,
        vendorID: UUID?,
        idempotencyKey: String,
        membershipID: String?,
        months: Int?,
        amountDZD: Int?,
        reason: String,
        seq: Int64 = 0
    ) {
        self.seq = seq
        self.at = at
        self.credentialID = credentialID
        self.vendorID = vendorID
        self.idempotencyKey = idempotencyKey
        self.membershipID = membershipID
        self.months = months
        self.amountDZD = amountDZD
        self.reason = reason
    }
}
