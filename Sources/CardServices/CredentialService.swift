import CardCrypto
import CardQR
public import Foundation
public import Membership

/// What the credentials' lifecycle reads and writes: credentials (enrolment codes and cut-offs through their
/// transaction), the audit trail, vendors.
public typealias CredentialLedger = CredentialStore & AuditStore & VendorStore

extension AuditStore {
    /// Appends `actor`'s `action` on `target` at `time` to the audit trail.
    public func audit(_ actor: AuditActor, _ action: String, _ target: UUID, _ detail: String, at time: Int64) async throws {
        try await appendAudit(actor.entry(action, target, detail, at: time))
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

    /// The audit entry of this actor's `action` on `target` at `time`: `detail` in English, `values` its facts
    /// one by one.
    public func entry(_ action: String, _ target: UUID, _ detail: String, _ values: [AuditValue] = [], at time: Int64) -> AuditEntry {
        AuditEntry(
            at: time,
            actor: label,
            actorCredentialID: credentialID,
            address: address,
            action: action,
            target: target.lowercasedText,
            detail: detail,
            values: values
        )
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
    public let now: WallClock

    public init(store: any CredentialLedger, now: WallClock) {
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
        if role != .vendor, vendorID != nil {
            throw MembershipError(
                .invalidFields,
                "Only a vendor credential names a vendor.",
                fields: ["vendor_id": "must be absent for \(role.rawValue)"]
            )
        }
        let (secret, credential) = newCredential(role: role, vendorID: vendorID, label: label, createdBy: actor.label)
        let time = now()
        try await store.inCredentialTransaction { tx in
            try await Self.requireActive(actor, tx, at: time)
            if role == .vendor {
                guard let vendorID, try await tx.vendorStanding(id: vendorID) != nil else {
                    throw MembershipError(
                        .invalidFields,
                        "A vendor credential names its vendor.",
                        fields: ["vendor_id": "must be an existing vendor's id"]
                    )
                }
            }
            try await tx.insert(credential)
            let detail = "\(role.rawValue) \"\(label)\"" + (vendorID.map { " vendor \($0.lowercasedText)" } ?? "")
            let values =
                [AuditValue("role", role.rawValue), AuditValue("label", label)] + (vendorID.map { [AuditValue("vendor", $0.lowercasedText)] } ?? [])
            try await tx.appendAudit(actor.entry("credential.create", credential.id, detail, values, at: time))
        }
        return Issued(credential: credential, secret: secret)
    }

    /// A new vendor (a shop joining) and its first credential, with its secret (shown once): one transaction with
    /// its audit entry.
    public func createVendor(name: String, category: String, neighbourhood: String, by actor: AuditActor) async throws -> (Vendor, Issued) {
        try Vendor.validate(name: name, category: category, neighbourhood: neighbourhood)
        let time = now()
        let vendor = Vendor(
            id: UUID(),
            name: name.trimmingCharacters(in: .whitespacesAndNewlines),
            category: category,
            neighbourhood: neighbourhood,
            createdAt: time
        )
        let (secret, credential) = newCredential(role: .vendor, vendorID: vendor.id, label: "vendor \(vendor.name)", createdBy: actor.label)
        try await store.inCredentialTransaction { tx in
            try await Self.requireActive(actor, tx, at: time)
            try await tx.insert(vendor)
            try await tx.insert(credential)
            try await tx.appendAudit(
                actor.entry("vendor.create", vendor.id, "\"\(vendor.name)\" with its first credential", [AuditValue("name", vendor.name)], at: time)
            )
        }
        return (vendor, Issued(credential: credential, secret: secret))
    }

    /// Every credential, of one role or vendor when given.
    public func list(role: Role?, vendorID: UUID?) async throws -> [APICredential] {
        try await store.credentials(role: role, vendorID: vendorID)
    }

    /// Renames a credential.
    public func rename(id: UUID, label: String, by actor: AuditActor) async throws -> APICredential {
        let label = try Self.checkedLabel(label)
        let time = now()
        return try await store.inCredentialTransaction { tx in
            try await Self.requireActive(actor, tx, at: time)
            guard var credential = try await tx.credential(id: id) else { throw Self.noCredential(id) }
            try await tx.rename(credential: id, label: label)
            try await tx.appendAudit(actor.entry("credential.rename", id, "\"\(label)\"", [AuditValue("label", label)], at: time))
            credential.label = label
            return credential
        }
    }

    /// Revokes a credential at once (a stolen phone, a shop that left), with every credential that replaced it by
    /// a rotation (the same device) and every enrolment code any of them made and nobody used. Revoking one
    /// already revoked changes nothing and writes nothing. The last lasting admin credential is kept: revoking it
    /// would lock every operator out of the API. One transaction: two admins revoking each other at once leave
    /// one.
    public func revoke(id: UUID, by actor: AuditActor) async throws -> APICredential {
        let time = now()
        return try await store.inCredentialTransaction { tx in
            // The lasting admins first, in one order for every transaction: two revocations take turns, not locks.
            let admins = try await tx.lastingAdmins()
            try await Self.requireActive(actor, tx, at: time)
            guard let credential = try await tx.credential(id: id) else { throw Self.noCredential(id) }
            guard credential.revokedAt == nil else { return credential }
            let revoking = [credential] + (try await tx.successors(of: id)).filter { $0.revokedAt == nil }
            let ids = Set(revoking.map(\.id))
            if admins.contains(where: { ids.contains($0.id) }), admins.allSatisfy({ ids.contains($0.id) }) {
                throw MembershipError(.conflict, "This is the last active admin credential: create another before revoking it.")
            }
            try await tx.revoke(credentials: revoking.map(\.id), at: time)
            let withdrawn = try await tx.withdrawCodes(ofVendor: nil, madeBy: revoking.map(\.id), at: time)
            var detail = "\(credential.role.rawValue) \"\(credential.label)\""
            if revoking.count > 1 { detail += ", and \(revoking.count - 1) credential(s) that replaced it" }
            if withdrawn > 0 { detail += ", \(withdrawn) unused enrolment code(s) it made withdrawn" }
            var values = [AuditValue("role", credential.role.rawValue), AuditValue("label", credential.label)]
            if revoking.count > 1 { values.append(AuditValue("successors_revoked", "\(revoking.count - 1)")) }
            if withdrawn > 0 { values.append(AuditValue("codes_withdrawn", "\(withdrawn)")) }
            try await tx.appendAudit(actor.entry("credential.revoke", id, detail, values, at: time))
            var revoked = credential
            revoked.revokedAt = time
            return revoked
        }
    }

    /// Replaces a credential's secret: a new credential with the same role, vendor and label, and the old one
    /// accepted for `grace` more seconds (0: refused at once), so a device can take the new secret first. The new
    /// one is the old one's successor: revoking the old one revokes it too.
    public func rotate(id: UUID, grace: Int64, by actor: AuditActor) async throws -> (issued: Issued, previous: APICredential) {
        guard (0...Self.maxGrace).contains(grace) else {
            throw MembershipError(.invalidFields, "The grace period is out of range.", fields: ["grace_seconds": "must be 0 to \(Self.maxGrace)"])
        }
        let time = now()
        return try await store.inCredentialTransaction { tx in
            _ = try await tx.lastingAdmins()  // the same lock order as a revocation
            try await Self.requireActive(actor, tx, at: time)
            guard var old = try await tx.credential(id: id) else { throw Self.noCredential(id) }
            guard old.refusal(now: time) == nil else {
                throw MembershipError(
                    .conflict,
                    "Only an active credential is rotated; this one is \(old.state(now: time)). Create a new one instead."
                )
            }
            var (secret, credential) = newCredential(role: old.role, vendorID: old.vendorID, label: old.label, createdBy: actor.label)
            credential.replacesID = old.id
            try await tx.insert(credential)
            if grace == 0 {
                try await tx.revoke(credentials: [id], at: time)
                old.revokedAt = time
            } else {
                try await tx.expire(credential: id, at: time + grace)
                old.expiresAt = min(old.expiresAt ?? .max, time + grace)
            }
            try await tx.appendAudit(
                actor.entry(
                    "credential.rotate",
                    id,
                    "new credential \(credential.id.lowercasedText), old accepted \(grace) s more",
                    [AuditValue("new_credential", credential.id.lowercasedText), AuditValue("grace_seconds", "\(grace)")],
                    at: time
                )
            )
            return (Issued(credential: credential, secret: secret), old)
        }
    }

    /// The longest grace period a rotated secret may keep: 7 days.
    public static let maxGrace: Int64 = 7 * 86_400

    // MARK: Enrolment

    /// A new one-time enrolment code for `vendorID`, living `lifetime` seconds, for a device to be named `label`
    /// (nil: the name the device gives itself). A code made by a credential dies with it: revoked, the code enrols
    /// nothing.
    public func enrolmentCode(
        vendorID: UUID,
        lifetime: Int64 = EnrolmentCode.defaultLifetime,
        label: String? = nil,
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
        let label = try label.map(Self.checkedLabel)
        let code = EnrolmentCode.generate()
        let time = now()
        try await store.inCredentialTransaction { tx in
            guard try await tx.vendorStanding(id: vendorID) != nil else {
                throw MembershipError(.notFound, "No vendor has id \(vendorID.lowercasedText).")
            }
            try await Self.requireActive(actor, tx, at: time)
            var made = EnrolmentCode(
                codeHash: Self.hash(code),
                vendorID: vendorID,
                createdBy: actor.label,
                createdByCredentialID: actor.credentialID,
                createdAt: time,
                expiresAt: time + lifetime
            )
            made.label = label
            try await tx.insert(made)
            try await tx.appendAudit(
                actor.entry(
                    "enrolment_code.create",
                    vendorID,
                    "valid \(lifetime) s" + (label.map { ", for \"\($0)\"" } ?? ""),
                    [AuditValue("lifetime_seconds", "\(lifetime)")] + (label.map { [AuditValue("label", $0)] } ?? []),
                    at: time
                )
            )
        }
        return (code, time + lifetime)
    }

    /// Exchanges a one-time code for a new vendor credential of the device's own, named `label`; throws the
    /// ``EnrolmentRefusal`` when the code is unknown, used, expired or withdrawn — withdrawn too when its vendor
    /// was cut off after it was made, or the credential that made it was revoked. One transaction with the
    /// vendor locked: a redemption and a cut-off take turns.
    public func enrol(code: String, label: String, address: String) async throws -> Issued {
        let label = try Self.checkedLabel(label)
        guard EnrolmentCode.isWellFormed(code) else { throw EnrolmentRefusal.unknown }
        let secret = APISecret.generate(role: .vendor)
        let time = now()
        let outcome: Result<APICredential, EnrolmentRefusal> = try await store.inCredentialTransaction { tx in
            // The vendor, then the code: the order a cut-off locks them in.
            guard let vendorID = try await tx.enrolmentCode(hash: Self.hash(code), locking: false)?.vendorID else { return .failure(.unknown) }
            let standing = try await tx.vendorStanding(id: vendorID)
            guard let found = try await tx.enrolmentCode(hash: Self.hash(code), locking: true) else { return .failure(.unknown) }
            if found.usedAt != nil { return .failure(.used) }
            if found.withdrawnAt != nil { return .failure(.revoked) }
            if found.expiresAt <= time { return .failure(.expired) }
            guard let standing else { return .failure(.revoked) }
            if let cutOff = standing.cutOffAt, cutOff >= found.createdAt { return .failure(.revoked) }
            if let creator = found.createdByCredentialID, try await tx.credential(id: creator)?.revokedAt != nil { return .failure(.revoked) }
            let credential = APICredential(
                id: UUID(),
                role: .vendor,
                vendorID: found.vendorID,
                secretHash: APISecret.hash(secret, sha256: SHA256.hash),
                label: found.label ?? label,
                createdAt: time,
                createdBy: "enrolment code"
            )
            try await tx.insert(credential)
            try await tx.markUsed(code: found.codeHash, at: time, by: credential.id)
            let actor = AuditActor(label: "enrolment code", credentialID: credential.id, address: address)
            try await tx.appendAudit(
                actor.entry(
                    "credential.enrol",
                    credential.id,
                    "vendor \(found.vendorID.lowercasedText) \"\(credential.label)\"",
                    [AuditValue("vendor", found.vendorID.lowercasedText), AuditValue("label", credential.label)],
                    at: time
                )
            )
            return .success(credential)
        }
        return Issued(credential: try outcome.get(), secret: secret)
    }

    /// Cuts a vendor off (a shop that left the chain): every credential of its revoked and every unused code
    /// withdrawn, in one transaction with the vendor locked, so no enrolment, code or credential made meanwhile
    /// slips past it; no code made before it enrols anything later. The number of credentials revoked.
    public func cutOff(vendorID: UUID, by actor: AuditActor) async throws -> Int {
        let time = now()
        return try await store.inCredentialTransaction { tx in
            guard try await tx.vendorStanding(id: vendorID) != nil else {
                throw MembershipError(.notFound, "No vendor has id \(vendorID.lowercasedText).")
            }
            try await Self.requireActive(actor, tx, at: time)
            let active = try await tx.credentials(ofVendor: vendorID).filter { $0.revokedAt == nil }.map(\.id)
            try await tx.revoke(credentials: active, at: time)
            let withdrawn = try await tx.withdrawCodes(ofVendor: vendorID, madeBy: active, at: time)
            try await tx.markCutOff(vendor: vendorID, at: time)
            try await tx.appendAudit(
                actor.entry(
                    "vendor.cut_off",
                    vendorID,
                    "\(active.count) credential(s) revoked, \(withdrawn) code(s) withdrawn",
                    [AuditValue("credentials_revoked", "\(active.count)"), AuditValue("codes_withdrawn", "\(withdrawn)")],
                    at: time
                )
            )
            return active.count
        }
    }

    // MARK: Audit

    /// Appends an administrative action to the audit trail.
    public func audit(_ actor: AuditActor, _ action: String, _ target: UUID, _ detail: String) async throws {
        try await store.audit(actor, action, target, detail, at: now())
    }

    /// Refuses an action by a credential revoked (or past its end) since the request was let in: decided in the
    /// action's own transaction, the credential's row locked.
    static func requireActive(_ actor: AuditActor, _ tx: any CredentialTransaction, at time: Int64) async throws {
        guard let id = actor.credentialID, let credential = try await tx.credential(id: id) else { return }
        if let refusal = credential.refusal(now: time) {
            throw MembershipError(
                .conflict,
                "The credential acting was \(refusal.isRevocation ? "revoked" : "replaced") meanwhile: nothing was done."
            )
        }
    }

    // MARK: Helpers

    /// A new credential and its secret (not stored yet).
    private func newCredential(role: Role, vendorID: UUID?, label: String, createdBy: String) -> (secret: String, credential: APICredential) {
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
        return (secret, credential)
    }

    static func hash(_ code: String) -> String { APISecret.hash(code, sha256: SHA256.hash) }

    static func noCredential(_ id: UUID) -> MembershipError { MembershipError(.notFound, "No credential has id \(id.lowercasedText).") }

    /// A label trimmed, 1 to 100 characters (Unicode scalars, as JSON Schema's `maxLength` counts them, before
    /// trimming: a person-sized letter such as "Ĵ🏻" is two), under the one rule for text people give
    /// (``TextRules``): no control or bidirectional override character.
    public static func checkedLabel(_ label: String) throws -> String {
        let trimmed = label.trimmingCharacters(in: .whitespacesAndNewlines)
        if let problem = TextRules.disguisingCharacterProblem(label) {
            throw MembershipError(.invalidFields, "The label is invalid.", fields: ["label": problem])
        }
        guard !trimmed.isEmpty, label.unicodeScalars.count <= 100 else {
            throw MembershipError(.invalidFields, "The label is invalid.", fields: ["label": "must be 1 to 100 characters"])
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
