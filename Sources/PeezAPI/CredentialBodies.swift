public import Foundation
public import Membership
import PeezBasics

/// A credential as the API shows it: never its secret or its hash.
public struct CredentialBody: Codable, Sendable {
    public var id: String
    public var role: String
    public var vendor_id: String?
    public var label: String
    /// `active`, `revoked` or `expired`.
    public var state: String
    public var created_at: String
    public var created_by: String
    /// The hour it was last used in; absent if never.
    public var last_used_at: String?
    public var revoked_at: String?
    /// When a rotated credential stops being accepted.
    public var expires_at: String?

    public init(_ credential: APICredential, now: Int64) {
        id = credential.id.lowercasedText
        role = credential.role.rawValue
        vendor_id = credential.vendorID?.lowercasedText
        label = credential.label
        state = credential.state(now: now)
        created_at = AlgiersCalendar.iso8601(credential.createdAt)
        created_by = credential.createdBy
        last_used_at = credential.lastUsedAt.map(AlgiersCalendar.iso8601)
        revoked_at = credential.revokedAt.map(AlgiersCalendar.iso8601)
        expires_at = credential.expiresAt.map(AlgiersCalendar.iso8601)
    }
}

public struct CredentialListBody: Codable, Sendable {
    public var credentials: [CredentialBody]
    public init(credentials: [CredentialBody]) { self.credentials = credentials }
}

/// A credential just made, with its secret: shown this once, only its hash is stored.
public struct IssuedCredentialBody: Codable, Sendable {
    public var credential: CredentialBody
    public var secret: String
    /// The credential a rotation replaced, with the end of its grace period.
    public var previous: CredentialBody?

    public init(credential: CredentialBody, secret: String, previous: CredentialBody? = nil) {
        self.credential = credential
        self.secret = secret
        self.previous = previous
    }
}

/// `POST /v1/credentials`.
public struct CreateCredentialRequest: APIRequest {
    public var role: Role
    public var vendor_id: UUID?
    public var label: String

    public init(role: Role, vendor_id: UUID?, label: String) {
        self.role = role
        self.vendor_id = vendor_id
        self.label = label
    }
}

/// `PATCH /v1/credentials/{id}`.
public struct RenameCredentialRequest: APIRequest {
    public var label: String
    public init(label: String) { self.label = label }
}

/// `POST /v1/credentials/{id}/rotate`.
public struct RotateCredentialRequest: APIRequest {
    /// A whole number as JSON Schema counts one (7 or 7.0).
    public var grace_seconds: Integral?
    public init(grace_seconds: Integral?) { self.grace_seconds = grace_seconds }
}

/// `POST /v1/vendors/{id}/enrolment-codes`.
public struct EnrolmentCodeRequest: APIRequest {
    /// A whole number as JSON Schema counts one (7 or 7.0).
    public var lifetime_seconds: Integral?
    /// The name the device it enrols will carry ("Karim's phone"); absent: the name the device gives itself.
    public var label: String?
    public init(lifetime_seconds: Integral?, label: String? = nil) {
        self.lifetime_seconds = lifetime_seconds
        self.label = label
    }
}

/// A one-time enrolment code: the code, the web counter's link that carries it, and the link as a QR code.
public struct EnrolmentCodeBody: Codable, Sendable {
    public var code: String
    public var vendor_id: String
    public var expires_at: String
    /// The web counter's address with the code in its fragment (never sent to a server in a request line).
    public var link: String
    /// The link as a QR code, an SVG document.
    public var qr_svg: String

    public init(code: String, vendorID: UUID, expiresAt: Int64, link: String, qrSVG: String) {
        self.code = code
        vendor_id = vendorID.lowercasedText
        expires_at = AlgiersCalendar.iso8601(expiresAt)
        self.link = link
        qr_svg = qrSVG
    }
}

/// `POST /v1/enrolments`: a device exchanges a code for its own credential.
public struct EnrolRequest: APIRequest {
    public var code: String
    public var label: String?

    public init(code: String, label: String?) {
        self.code = code
        self.label = label
    }
}

public struct VendorListBody: Codable, Sendable {
    public var vendors: [VendorBody]
    public init(vendors: [VendorBody]) { self.vendors = vendors }
}

public struct AuditEntryBody: Codable, Sendable {
    public var seq: Int64
    public var at: String
    public var actor: String
    public var actor_credential_id: String?
    public var address: String
    public var action: String
    public var target: String
    public var detail: String

    public init(_ entry: AuditEntry) {
        seq = entry.seq
        at = AlgiersCalendar.iso8601(entry.at)
        actor = entry.actor
        actor_credential_id = entry.actorCredentialID?.lowercasedText
        address = entry.address
        action = entry.action
        target = entry.target
        detail = entry.detail
    }
}

public struct AuditListBody: Codable, Sendable {
    public var entries: [AuditEntryBody]
    public init(entries: [AuditEntryBody]) { self.entries = entries }
}

public struct RefusedSaleBody: Codable, Sendable {
    /// Its place in the list: pass the last one's as `before` for the next page.
    public var seq: Int64
    public var at: String
    public var credential_id: String
    public var vendor_id: String?
    public var idempotency_key: String
    public var membership_id: String?
    public var months: Int?
    public var amount_dzd: Int?
    public var reason: String

    public init(_ sale: RefusedSale) {
        seq = sale.seq
        at = AlgiersCalendar.iso8601(sale.at)
        credential_id = sale.credentialID.lowercasedText
        vendor_id = sale.vendorID?.lowercasedText
        idempotency_key = sale.idempotencyKey
        membership_id = sale.membershipID
        months = sale.months
        amount_dzd = sale.amountDZD
        reason = sale.reason
    }
}

public struct RefusedSaleListBody: Codable, Sendable {
    public var refused_sales: [RefusedSaleBody]
    public init(refused_sales: [RefusedSaleBody]) { self.refused_sales = refused_sales }
}
