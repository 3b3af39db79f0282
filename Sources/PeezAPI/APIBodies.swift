public import CardToken
public import Foundation
public import Membership
import PeezBasics

/// JSON bodies of the API, snake_case on the wire: one type each, for the server that answers them, the clients
/// that send and read them (the counter), and the tests.

public struct MemberBody: Codable, Sendable {
    public var uuid: String
    public var membership_id: String
    public var name: String
    public var phone: String
    public var email: String
    public var neighbourhood: String
    public var language: String
    public var created_at: String
    /// The member's device key (base64url), to which every new card is bound; null: the cards are bound to
    /// nothing and are shown bare.
    public var device_key: String?

    enum CodingKeys: String, CodingKey {
        case uuid, membership_id, name, phone, email, neighbourhood, language, created_at, device_key
    }

    /// `device_key` is always sent, null when none is registered.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(uuid, forKey: .uuid)
        try container.encode(membership_id, forKey: .membership_id)
        try container.encode(name, forKey: .name)
        try container.encode(phone, forKey: .phone)
        try container.encode(email, forKey: .email)
        try container.encode(neighbourhood, forKey: .neighbourhood)
        try container.encode(language, forKey: .language)
        try container.encode(created_at, forKey: .created_at)
        try container.encode(device_key, forKey: .device_key)
    }

    public init(_ member: Member) {
        uuid = member.uuid.lowercasedText
        membership_id = member.membershipID
        name = member.name
        phone = member.phone
        email = member.email
        neighbourhood = member.neighbourhood
        language = member.language.rawValue
        created_at = AlgiersCalendar.iso8601(member.createdAt)
        device_key = member.deviceKey?.base64url
    }
}

/// `POST /v1/members/{uuid}/device-key`: the public key of the member's phone.
public struct DeviceKeyRequest: APIRequest {

    /// The raw 32-byte Ed25519 public key, base64url without padding.
    public var public_key: String

    public init(public_key: String) { self.public_key = public_key }
    /// The key, or `invalidFields` naming what is wrong with it.
    public func deviceKey() throws(MembershipError) -> DeviceKey {
        let key: DeviceKey
        do {
            key = try DeviceKey(base64url: public_key)
        } catch {
            throw MembershipError(
                .invalidFields,
                "The device key is not usable.",
                fields: ["public_key": "must be a raw Ed25519 public key (32 bytes) in base64url without padding: \(error.reason)"]
            )
        }
        guard key.isOnCurve else {
            throw MembershipError(
                .invalidFields,
                "The device key is not usable.",
                fields: ["public_key": "is not a point of the Ed25519 curve (RFC 8032 §5.1.3): no phone could sign with it"]
            )
        }
        return key
    }
}

public struct CreateMemberRequest: APIRequest {

    public var uuid: UUID
    public var name: String
    public var phone: String
    public var email: String
    public var neighbourhood: String
    public var language: Member.Language?

    public init(uuid: UUID, name: String, phone: String, email: String, neighbourhood: String, language: Member.Language? = nil) {
        self.uuid = uuid
        self.name = name
        self.phone = phone
        self.email = email
        self.neighbourhood = neighbourhood
        self.language = language
    }
}

public struct UpdateMemberRequest: APIRequest {

    public var name: String?
    public var phone: String?
    public var email: String?
    public var neighbourhood: String?
    public var language: Member.Language?

    public init(name: String? = nil, phone: String? = nil, email: String? = nil, neighbourhood: String? = nil, language: Member.Language? = nil) {
        self.name = name
        self.phone = phone
        self.email = email
        self.neighbourhood = neighbourhood
        self.language = language
    }
}

public struct PeriodBody: Codable, Sendable {
    public var id: String
    public var member_uuid: String
    public var months: Int
    public var amount_dzd: Int
    public var source: String
    public var vendor_id: String?
    public var status: String
    public var purchased_at: String
    public var starts_at: String
    public var ends_at: String
    public var cancelled_at: String?

    public init(_ period: SubscriptionPeriod, now: Int64) {
        id = period.id.lowercasedText
        member_uuid = period.memberUUID.lowercasedText
        months = period.months
        amount_dzd = period.amountDZD
        source = period.source.rawValue
        vendor_id = period.vendorID?.lowercasedText
        status = period.status(at: now).rawValue
        purchased_at = AlgiersCalendar.iso8601(period.purchasedAt)
        starts_at = AlgiersCalendar.iso8601(period.startsAt)
        ends_at = AlgiersCalendar.iso8601(period.endsAt)
        cancelled_at = period.cancelledAt.map(AlgiersCalendar.iso8601)
    }
}

/// Where a member's paid time stands.
public struct CoverageBody: Codable, Sendable {
    /// `active` while paid time remains, `expired` after it, `none` for a member who never paid.
    public var status: String
    public var ends_at: String?
    public var days_left: Int

    enum CodingKeys: String, CodingKey { case status, ends_at, days_left }

    /// `ends_at` is always sent, null for a member who never paid.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status, forKey: .status)
        try container.encode(ends_at, forKey: .ends_at)
        try container.encode(days_left, forKey: .days_left)
    }

    public init(coverageEnd: Int64?, now: Int64) {
        status = coverageEnd.map { $0 > now ? "active" : "expired" } ?? "none"
        ends_at = coverageEnd.map(AlgiersCalendar.iso8601)
        days_left = CoverageSchedule.daysLeft(until: coverageEnd ?? now, now: now)
    }
}

public struct SubscriptionBody: Codable, Sendable {
    public var member_uuid: String
    public var membership_id: String
    public var coverage: CoverageBody
    /// Newest first.
    public var periods: [PeriodBody]

    public init(member_uuid: String, membership_id: String, coverage: CoverageBody, periods: [PeriodBody]) {
        self.member_uuid = member_uuid
        self.membership_id = membership_id
        self.coverage = coverage
        self.periods = periods
    }
}

public struct CardBody: Codable, Sendable {
    public var member: MemberBody
    public var subscription: CoverageBody
    public var token: String
    public var token_id: String
    public var issued_at: String
    public var expires_at: String
    public var qr_png_base64: String

    public init(
        member: MemberBody,
        subscription: CoverageBody,
        token: String,
        token_id: String,
        issued_at: String,
        expires_at: String,
        qr_png_base64: String
    ) {
        self.member = member
        self.subscription = subscription
        self.token = token
        self.token_id = token_id
        self.issued_at = issued_at
        self.expires_at = expires_at
        self.qr_png_base64 = qr_png_base64
    }
}

public struct ActivationRequest: APIRequest {

    public var card_token: String?
    public var membership_id: String?
    public var months: Int
    public var amount_dzd: Int

    public init(card_token: String? = nil, membership_id: String? = nil, months: Int, amount_dzd: Int) {
        self.card_token = card_token
        self.membership_id = membership_id
        self.months = months
        self.amount_dzd = amount_dzd
    }
}

public struct ActivationBody: Codable, Sendable {
    public struct IssuedCard: Codable, Sendable {
        public var token: String
        public var token_id: String
        public var expires_at: String

        public init(token: String, token_id: String, expires_at: String) {
            self.token = token
            self.token_id = token_id
            self.expires_at = expires_at
        }
    }
    public struct MemberSummary: Codable, Sendable {
        public var uuid: String
        public var membership_id: String
        public var name: String

        public init(uuid: String, membership_id: String, name: String) {
            self.uuid = uuid
            self.membership_id = membership_id
            self.name = name
        }
    }
    public var period: PeriodBody
    public var member: MemberSummary
    public var coverage_end: String
    public var card: IssuedCard

    public init(period: PeriodBody, member: MemberSummary, coverage_end: String, card: IssuedCard) {
        self.period = period
        self.member = member
        self.coverage_end = coverage_end
        self.card = card
    }
}

public struct ActivationListBody: Codable, Sendable {
    /// Newest first.
    public var activations: [PeriodBody]

    public init(activations: [PeriodBody]) {
        self.activations = activations
    }
}

public struct CancellationBody: Codable, Sendable {
    public var period: PeriodBody
    public var coverage: CoverageBody
    public var cards_revoked_before: String

    public init(period: PeriodBody, coverage: CoverageBody, cards_revoked_before: String) {
        self.period = period
        self.coverage = coverage
        self.cards_revoked_before = cards_revoked_before
    }
}

public struct VerifyRequest: APIRequest {

    public var token: String

    public init(token: String) {
        self.token = token
    }
}

public struct VerifyBody: Codable, Sendable {
    public var verdict: String
    public var detail: String?
    public var kid: String?
    public var sub: String?
    public var name: String?
    public var exp: Int64?
    public var iat: Int64?
    public var cti: String?
    /// The spec's step that refused the text; absent for a valid one.
    public var step: Int?
    /// When the phone made the presentation (seconds since the epoch), once its device signature verified.
    public var presented_at: Int64?
    /// The member's live coverage, for an authentic card.
    public var coverage: CoverageBody?
    /// What the card itself says when the verdict comes from the ledger instead: an authentic, unrevoked card
    /// refused only as `expired` or `no_paid_period`, of a member paid since it was issued (`card_outdated`).
    public var card_verdict: String?
    /// The card is older than the member's latest sale: valid by the ledger; the app should fetch a new card.
    public var card_outdated: Bool?

    public init(
        verdict: String,
        detail: String? = nil,
        kid: String? = nil,
        sub: String? = nil,
        name: String? = nil,
        exp: Int64? = nil,
        iat: Int64? = nil,
        cti: String? = nil,
        coverage: CoverageBody? = nil
    ) {
        self.verdict = verdict
        self.detail = detail
        self.kid = kid
        self.sub = sub
        self.name = name
        self.exp = exp
        self.iat = iat
        self.cti = cti
        self.coverage = coverage
    }
}

public struct CreateVendorRequest: APIRequest {

    public var name: String
    public var category: String
    public var neighbourhood: String

    public init(name: String, category: String, neighbourhood: String) {
        self.name = name
        self.category = category
        self.neighbourhood = neighbourhood
    }
}

public struct VendorBody: Codable, Sendable {
    public var id: String
    public var name: String
    public var category: String
    public var neighbourhood: String
    public var created_at: String

    public init(_ vendor: Vendor) {
        id = vendor.id.lowercasedText
        name = vendor.name
        category = vendor.category
        neighbourhood = vendor.neighbourhood
        created_at = AlgiersCalendar.iso8601(vendor.createdAt)
    }
}

public struct CreatedVendorBody: Codable, Sendable {
    public var vendor: VendorBody
    /// Shown once: only its hash is stored.
    public var api_secret: String

    public init(vendor: VendorBody, api_secret: String) {
        self.vendor = vendor
        self.api_secret = api_secret
    }
}

extension ActivationBody {
    /// The answer to a sale: the period sold, whom for, the coverage it brings and the card signed for it.
    public init(member: Member, period: SubscriptionPeriod, card: StoredCard, now: Int64) {
        self.init(
            period: PeriodBody(period, now: now),
            member: MemberSummary(uuid: member.uuid.lowercasedText, membership_id: member.membershipID, name: member.name),
            coverage_end: AlgiersCalendar.iso8601(period.endsAt),
            card: IssuedCard(token: card.token, token_id: card.tokenID, expires_at: AlgiersCalendar.iso8601(card.expiresAt))
        )
    }
}

/// What Wallet sends to register a device for a pass's updates: `{"pushToken": "…"}`.
public struct WalletRegistrationRequest: APIRequest {

    public var pushToken: String

    public init(pushToken: String) { self.pushToken = pushToken }
}

/// What Wallet answers a device asking which of its passes changed: `{"serialNumbers": […], "lastUpdated": "…"}`.
public struct WalletUpdatedPassesBody: Codable, Sendable {
    public var serialNumbers: [String]
    /// The tag to send as `passesUpdatedSince` next time (opaque to Wallet: seconds since the epoch here).
    public var lastUpdated: String

    public init(serialNumbers: [String], lastUpdated: String) {
        self.serialNumbers = serialNumbers
        self.lastUpdated = lastUpdated
    }
}

/// `GET /v1/members/{uuid}/google-wallet`: the link that saves the card to Google Wallet.
public struct GoogleWalletLinkBody: Codable, Sendable {
    public var save_url: String

    public init(save_url: String) { self.save_url = save_url }
}
