import CardToken
import Foundation
import Membership

/// JSON bodies of the API, snake_case on the wire.

struct MemberBody: Codable {
    var uuid: String
    var membership_id: String
    var name: String
    var phone: String
    var email: String
    var neighbourhood: String
    var language: String
    var created_at: String

    init(_ member: Member) {
        uuid = member.uuid.lowercasedText
        membership_id = member.membershipID
        name = member.name
        phone = member.phone
        email = member.email
        neighbourhood = member.neighbourhood
        language = member.language.rawValue
        created_at = AlgiersCalendar.iso8601(member.createdAt)
    }
}

struct CreateMemberRequest: RequestFields {
    static let fields: [String: (kind: FieldKind, required: Bool)] = [
        "uuid": (.uuid, true), "name": (.text, true), "phone": (.text, true), "email": (.text, true),
        "neighbourhood": (.text, true), "language": (.oneOf(Member.Language.allCases.map(\.rawValue)), false),
    ]

    var uuid: UUID
    var name: String
    var phone: String
    var email: String
    var neighbourhood: String
    var language: Member.Language?
}

struct UpdateMemberRequest: RequestFields {
    static let fields: [String: (kind: FieldKind, required: Bool)] = [
        "name": (.text, false), "phone": (.text, false), "email": (.text, false), "neighbourhood": (.text, false),
        "language": (.oneOf(Member.Language.allCases.map(\.rawValue)), false),
    ]

    var name: String?
    var phone: String?
    var email: String?
    var neighbourhood: String?
    var language: Member.Language?
}

struct PeriodBody: Codable {
    var id: String
    var member_uuid: String
    var months: Int
    var amount_dzd: Int
    var source: String
    var vendor_id: String?
    var status: String
    var purchased_at: String
    var starts_at: String
    var ends_at: String
    var cancelled_at: String?

    init(_ period: SubscriptionPeriod, now: Int64) {
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
struct CoverageBody: Codable {
    /// `active` while paid time remains, else `expired`.
    var status: String
    var ends_at: String?
    var days_left: Int

    enum CodingKeys: String, CodingKey { case status, ends_at, days_left }

    /// `ends_at` is always sent, null for a member who never paid.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status, forKey: .status)
        try container.encode(ends_at, forKey: .ends_at)
        try container.encode(days_left, forKey: .days_left)
    }

    init(coverageEnd: Int64?, now: Int64) {
        let active = (coverageEnd ?? now) > now
        status = active ? "active" : "expired"
        ends_at = coverageEnd.map(AlgiersCalendar.iso8601)
        days_left = CoverageSchedule.daysLeft(until: coverageEnd ?? now, now: now)
    }
}

struct SubscriptionBody: Codable {
    var member_uuid: String
    var membership_id: String
    var coverage: CoverageBody
    /// Newest first.
    var periods: [PeriodBody]
}

struct CardBody: Codable {
    var member: MemberBody
    var subscription: CoverageBody
    var token: String
    var token_id: String
    var issued_at: String
    var expires_at: String
    var qr_png_base64: String
}

struct ActivationRequest: RequestFields {
    static let fields: [String: (kind: FieldKind, required: Bool)] = [
        "card_token": (.text, false), "membership_id": (.text, false), "months": (.wholeNumber, true), "amount_dzd": (.wholeNumber, true),
    ]

    var card_token: String?
    var membership_id: String?
    var months: Int
    var amount_dzd: Int
}

struct ActivationBody: Codable {
    struct IssuedCard: Codable {
        var token: String
        var token_id: String
        var expires_at: String
    }
    struct MemberSummary: Codable {
        var uuid: String
        var membership_id: String
        var name: String
    }
    var period: PeriodBody
    var member: MemberSummary
    var coverage_end: String
    var card: IssuedCard
}

struct ActivationListBody: Codable {
    /// Newest first.
    var activations: [PeriodBody]
}

struct CancellationBody: Codable {
    var period: PeriodBody
    var coverage: CoverageBody
    var cards_revoked_before: String
}

struct VerifyRequest: RequestFields {
    static let fields: [String: (kind: FieldKind, required: Bool)] = ["token": (.text, true)]

    var token: String
}

struct VerifyBody: Codable {
    var verdict: String
    var detail: String?
    var kid: String?
    var sub: String?
    var name: String?
    var exp: Int64?
    var iat: Int64?
    var cti: String?
    /// The member's live coverage, for an authentic card.
    var coverage: CoverageBody?
}

struct CreateVendorRequest: RequestFields {
    static let fields: [String: (kind: FieldKind, required: Bool)] = [
        "name": (.text, true), "category": (.text, true), "neighbourhood": (.text, true),
    ]

    var name: String
    var category: String
    var neighbourhood: String
}

struct VendorBody: Codable {
    var id: String
    var name: String
    var category: String
    var neighbourhood: String
    var created_at: String

    init(_ vendor: Vendor) {
        id = vendor.id.lowercasedText
        name = vendor.name
        category = vendor.category
        neighbourhood = vendor.neighbourhood
        created_at = AlgiersCalendar.iso8601(vendor.createdAt)
    }
}

struct CreatedVendorBody: Codable {
    var vendor: VendorBody
    /// Shown once: only its hash is stored.
    var api_secret: String
}
