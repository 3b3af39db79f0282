import CardCrypto
import CardQR
public import Foundation
public import Membership

/// What the credentials' lifecycle reads and writes: credentials, enrolment codes, the audit trail, vendors.
public typealias CredentialLedger = CredentialStore & EnrolmentCodeStore & AuditStore & VendorStore

extension AuditStore {
    /// Appends `actor`'s `action` on `target` at `time` to the audit trail.
    public func audit(_ actor: AuditActor, _ action: String, _ target: UUID, _ detail: String, at time: Int64) async throws {
        try await appendAudit(
            AuditEntry(
                at: time,
                actor: actor.label,
                actorCredentialID: actor.credentialID,
                address: actor.address,
                action: action,
                target: target.lowercasedText,
                detail: detail
            )
        )
    }
}

/// Who is acting on credentials, for the audit trail: a credential over the API, or the operator at the command
/// line ("peez admin", address "local").
public struct AuditActor: Sendable, Hashable {
    public var label: String
    public var credentialID: UUID?
    public var address: String

    public init(label: String, credentialID: UUID?, address: String) {
        self.label = label
        self.credentialID = credentialID
        self.address = address
    }

    /// A credential acting over the API from `address`.
    public init(credential: APICredential, address: String) {
        self.init(label: credential.label, credentialID: credential.id, address: address)
    }

    /// The operator at this machine's command line.
    public static func commandLine() -> AuditActor {
        let user = ProcessInfo.processInfo.environment["SUDO_USER"] ?? ProcessInfo.processInfo.environment["USER"] ?? "unknown user"
        return AuditActor(label: "peez admin (\(user))", credentialID: nil, address: "local")
    }
}

/// The credentials' lifecycle, as the HTTP API and `peez admin` both run it: each device its own credential,
/// created, listed, renamed, revoked and rotated; one-time enrolment codes exchanged for a device's own
/// credential; every administrative action appended to the audit trail. Secrets are shown once and stored as
/// SHA-256 hashes; a revoked credential is refused by every instance within ``Authenticator``'s cache time.
public struct CredentialService: Sendable {
    public let store: any CredentialLedger
    public let now: @Sendable () -> Int64

    public init(store: any CredentialLedger, now: @escaping @Sendable () -> Int64) {
        self.store = store
        self.now = now
    }

    /// A credential and, when just made, its secret (shown this once).
    public struct Issued: Sendable {
        public var credential: APICredential
        public var secret: String
    }

    /// A new credential of `role` (a vendor's names its vendor, which must exist).
    public func create(role: Role, vendorID: UUID?, label: String, by actor: AuditActor) async throws -> Issued {
        let label = try Self.checkedLabel(label)
        if role == .vendor {
            guard let vendorID, try await store.vendor(id: vendorID) != nil else {
                throw MembershipError(
                    .invalidFields,
                    "A vendor credential names its vendor.",
                    fields: ["vendor_id": "must be an existing vendor's id"]
                )
            }
        } else if vendorID != nil {
            throw MembershipError(
                .invalidFields,
                "Only a vendor credential names a vendor.",
                fields: ["vendor_id": "must be absent for \(role.rawValue)"]
            )
        }
        let issued = try await save(role: role, vendorID: vendorID, label: label, createdBy: actor.label)
        try await audit(
            actor,
            "credential.create",
            issued.credential.id,
            "\(role.rawValue) \"\(label)\"" + (vendorID.map { " vendor \($0.lowercasedText)" } ?? "")
        )
        return issued
    }

    /// Every credential, of one role or vendor when given.
    public func list(role: Role?, vendorID: UUID?) async throws -> [APICredential] {
        try await store.credentials(role: role, vendorID: vendorID)
    }

    /// Renames a credential.
    public func rename(id: UUID, label: String, by actor: AuditActor) async throws -> APICredential {
        let label = try Self.checkedLabel(label)
        guard try await store.renameCredential(id: id, label: label), let renamed = try await store.credential(id: id) else {
            throw Self.noCredential(id)
        }
        try await audit(actor, "credential.rename", id, "\"\(label)\"")
        return renamed
    }

    /// Revokes a credential at once (a stolen phone, a shop that left). The last active admin credential is
    /// kept: revoking it would lock every operator out of the API.
    public func revoke(id: UUID, by actor: AuditActor) async throws -> APICredential {
        guard let credential = try await store.credential(id: id) else { throw Self.noCredential(id) }
        let time = now()
        if credential.role == .admin, credential.refusal(now: time) == nil {
            let others = try await store.credentials(role: .admin, vendorID: nil).filter { $0.id != id && $0.refusal(now: time) == nil }
            guard !others.isEmpty else {
                throw MembershipError(.conflict, "This is the last active admin credential: create another before revoking it.")
            }
        }
        _ = try await store.revokeCredential(id: id, now: time)
        try await audit(actor, "credential.revoke", id, "\(credential.role.rawValue) \"\(credential.label)\"")
        return try await store.credential(id: id) ?? credential
    }

    /// Replaces a credential's secret: a new credential with the same role, vendor and label, and the old one
    /// accepted for `grace` more seconds (0: refused at once), so a device can take the new secret first.
    public func rotate(id: UUID, grace: Int64, by actor: AuditActor) async throws -> (issued: Issued, previous: APICredential) {
        guard (0...Self.maxGrace).contains(grace) else {
            throw MembershipError(.invalidFields, "The grace period is out of range.", fields: ["grace_seconds": "must be 0 to \(Self.maxGrace)"])
        }
        guard let old = try await store.credential(id: id) else { throw Self.noCredential(id) }
        let time = now()
        guard old.refusal(now: time) == nil else {
            throw MembershipError(.conflict, "Only an active credential is rotated; this one is \(old.state(now: time)). Create a new one instead.")
        }
        let issued = try await save(role: old.role, vendorID: old.vendorID, label: old.label, createdBy: actor.label)
        if grace == 0 {
            _ = try await store.revokeCredential(id: id, now: time)
        } else {
            _ = try await store.expireCredential(id: id, at: time + grace)
        }
        try await audit(actor, "credential.rotate", id, "new credential \(issued.credential.id.lowercasedText), old accepted \(grace) s more")
        return (issued, try await store.credential(id: id) ?? old)
    }

    /// The longest grace period a rotated secret may keep: 7 days.
    public static let maxGrace: Int64 = 7 * 86_400

    // MARK: Enrolment

    /// A new one-time enrolment code for `vendorID`, living `lifetime` seconds.
    public func enrolmentCode(
        vendorID: UUID,
        lifetime: Int64 = EnrolmentCode.defaultLifetime,
        by actor: AuditActor
    ) async throws -> (
        code: String, expiresAt: Int64
    ) {
        guard (60...EnrolmentCode.maxLifetime).contains(lifetime) else {
            throw MembershipError(
                .invalidFields,
                "The code's lifetime is out of range.",
                fields: ["lifetime_seconds": "must be 60 to \(EnrolmentCode.maxLifetime)"]
            )
        }
        guard try await store.vendor(id: vendorID) != nil else { throw MembershipError(.notFound, "No vendor has id \(vendorID.lowercasedText).") }
        let code = EnrolmentCode.generate()
        let time = now()
        try await store.saveEnrolmentCode(
            EnrolmentCode(codeHash: Self.hash(code), vendorID: vendorID, createdBy: actor.label, createdAt: time, expiresAt: time + lifetime)
        )
        try await audit(actor, "enrolment_code.create", vendorID, "valid \(lifetime) s")
        return (code, time + lifetime)
    }

    /// Exchanges a one-time code for a new vendor credential of the device's own, named `label`; throws the
    /// ``EnrolmentRefusal`` when the code is unknown, used, expired or withdrawn.
    public func enrol(code: String, label: String, address: String) async throws -> Issued {
        let label = try Self.checkedLabel(label)
        guard EnrolmentCode.isWellFormed(code) else { throw EnrolmentRefusal.unknown }
        let secret = APISecret.generate(role: .vendor)
        let credential = APICredential(
            id: UUID(),
            role: .vendor,
            vendorID: nil,
            secretHash: APISecret.hash(secret, sha256: SHA256.hash),
            label: label,
            createdAt: now(),
            createdBy: "enrolment code"
        )
        switch try await store.redeemEnrolmentCode(hash: Self.hash(code), now: now(), credential: credential) {
        case .success(let stored):
            let actor = AuditActor(label: "enrolment code", credentialID: stored.id, address: address)
            try await audit(actor, "credential.enrol", stored.id, "vendor \(stored.vendorID?.lowercasedText ?? "?") \"\(label)\"")
            return Issued(credential: stored, secret: secret)
        case .failure(let refusal):
            throw refusal
        }
    }

    /// Revokes every credential of a vendor and withdraws its unused codes (a shop that left the chain).
    public func cutOff(vendorID: UUID, by actor: AuditActor) async throws -> Int {
        guard try await store.vendor(id: vendorID) != nil else { throw MembershipError(.notFound, "No vendor has id \(vendorID.lowercasedText).") }
        let time = now()
        var revoked = 0
        for credential in try await store.credentials(role: .vendor, vendorID: vendorID) where credential.revokedAt == nil {
            _ = try await store.revokeCredential(id: credential.id, now: time)
            revoked += 1
        }
        let withdrawn = try await store.withdrawEnrolmentCodes(vendorID: vendorID, now: time)
        try await audit(actor, "vendor.cut_off", vendorID, "\(revoked) credential(s) revoked, \(withdrawn) code(s) withdrawn")
        return revoked
    }

    // MARK: Audit

    /// Appends an administrative action to the audit trail.
    public func audit(_ actor: AuditActor, _ action: String, _ target: UUID, _ detail: String) async throws {
        try await store.audit(actor, action, target, detail, at: now())
    }

    // MARK: Helpers

    private func save(role: Role, vendorID: UUID?, label: String, createdBy: String) async throws -> Issued {
        let secret = APISecret.generate(role: role)
        let credential = APICredential(
            id: UUID(),
            role: role,
            vendorID: vendorID,
            secretHash: APISecret.hash(secret, sha256: SHA256.hash),
            label: label,
            createdAt: now(),
            createdBy: createdBy
        )
        try await store.saveCredential(credential)
        return Issued(credential: credential, secret: secret)
    }

    static func hash(_ code: String) -> String { APISecret.hash(code, sha256: SHA256.hash) }

    static func noCredential(_ id: UUID) -> MembershipError { MembershipError(.notFound, "No credential has id \(id.lowercasedText).") }

    /// A label trimmed, 1 to 100 characters, no control characters.
    static func checkedLabel(_ label: String) throws -> String {
        let trimmed = label.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...100).contains(trimmed.count), !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw MembershipError(.invalidFields, "The label is invalid.", fields: ["label": "must be 1 to 100 characters, no control characters"])
        }
        return trimmed
    }
}

/// The web counter's address that enrols a phone with a one-time code: the code rides in the fragment, which a
/// browser never sends in a request, so it reaches no access log; the page exchanges it and forgets it.
public enum EnrolmentLink {
    /// `base` (the service's public address) + `/counter/#enrol=` + `code`.
    public static func link(base: String, code: String) -> String {
        (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/counter/#enrol=" + code
    }

    /// The link as an SVG QR code.
    public static func svg(_ link: String) throws -> String {
        try SVGRenderer(layout: QRLayout(moduleSize: 6, quietZone: 4)).render(try QRMatrix.encodeBytes(link))
    }
}
