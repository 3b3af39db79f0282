public import CardToken
public import Foundation
import PeezBasics

/// A PEEZ member, as the ledger stores it.
public struct Member: Sendable, Hashable, Codable {
    /// The backend's own user id.
    public var uuid: UUID
    /// `PEEZ-YYYYMMDD-NNNNN`: registration day in Algiers and that day's sequence number.
    public var membershipID: String
    public var name: String
    /// `+213` followed by 9 digits.
    public var phone: String
    public var email: String
    /// One of ``Oran/neighbourhoods``.
    public var neighbourhood: String
    public var language: Language
    /// Seconds since the epoch.
    public var createdAt: Int64
    /// The public key of the member's phone, once the backend registered one: the member's cards are then bound
    /// to it, and accepted only in presentations it signs.
    public var deviceKey: DeviceKey?

    public init(
        uuid: UUID,
        membershipID: String,
        name: String,
        phone: String,
        email: String,
        neighbourhood: String,
        language: Language,
        createdAt: Int64,
        deviceKey: DeviceKey? = nil
    ) {
        self.uuid = uuid
        self.membershipID = membershipID
        self.name = name
        self.phone = phone
        self.email = email
        self.neighbourhood = neighbourhood
        self.language = language
        self.createdAt = createdAt
        self.deviceKey = deviceKey
    }

    /// The languages the app speaks.
    public enum Language: String, Sendable, Codable, CaseIterable {
        case fr, ar
    }

    /// The membership id for the `sequence`-th member registered on the Algiers day of `registeredAt`.
    public static func membershipID(registeredAt: Int64, sequence: Int) -> String {
        "PEEZ-\(AlgiersCalendar.dayStamp(registeredAt))-" + DecimalText.zeroPadded(sequence, width: 5)
    }

    /// Whether the stored member has exactly the fields of `draft` (an idempotent re-creation).
    public func matches(_ draft: MemberDraft) -> Bool {
        uuid == draft.uuid && name == draft.name && phone == draft.phone && email == draft.email
            && neighbourhood == draft.neighbourhood && language == draft.language
    }
}

/// What the backend sends to create a member; ``validated()`` normalises and checks every field.
public struct MemberDraft: Sendable, Hashable {
    public var uuid: UUID
    public var name: String
    public var phone: String
    public var email: String
    public var neighbourhood: String
    public var language: Member.Language

    public init(uuid: UUID, name: String, phone: String, email: String, neighbourhood: String, language: Member.Language = .fr) {
        self.uuid = uuid
        self.name = name
        self.phone = phone
        self.email = email
        self.neighbourhood = neighbourhood
        self.language = language
    }

    /// The draft with the name's surrounding spaces trimmed and the email lower-cased, or `invalidFields`
    /// naming each problem. Each field is judged as it was sent, as the OpenAPI document describes it.
    public func validated() throws(MembershipError) -> MemberDraft {
        var draft = self
        draft.name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        draft.email = email.lowercased()
        var problems: [String: String] = [:]
        if let problem = TextRules.nameProblem(name) { problems["name"] = problem }
        if let problem = MemberRules.phoneProblem(phone) { problems["phone"] = problem }
        if let problem = MemberRules.emailProblem(email) { problems["email"] = problem }
        if let problem = MemberRules.neighbourhoodProblem(draft.neighbourhood) { problems["neighbourhood"] = problem }
        guard problems.isEmpty else { throw MembershipError(.invalidFields, "The member has invalid fields.", fields: problems) }
        return draft
    }
}

/// Changes to a member; nil leaves a field as it is.
public struct MemberPatch: Sendable, Hashable {
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

    /// `member` with this patch applied and validated.
    public func applied(to member: Member) throws(MembershipError) -> Member {
        let draft = try MemberDraft(
            uuid: member.uuid,
            name: name ?? member.name,
            phone: phone ?? member.phone,
            email: email ?? member.email,
            neighbourhood: neighbourhood ?? member.neighbourhood,
            language: language ?? member.language
        ).validated()
        var updated = member
        updated.name = draft.name
        updated.phone = draft.phone
        updated.email = draft.email
        updated.neighbourhood = draft.neighbourhood
        updated.language = draft.language
        return updated
    }
}

/// The field rules, each returning what is wrong or nil.
enum MemberRules {
    static func phoneProblem(_ phone: String) -> String? {
        let digits = phone.dropFirst(4)
        guard phone.hasPrefix("+213"), digits.count == 9, digits.allSatisfy(\.isASCIIDigit) else {
            return "must be an Algerian number: +213 followed by 9 digits, e.g. +213550123456"
        }
        return nil
    }

    /// One `@`, a local part, a dotted domain that neither begins nor ends with a dot, no white space: judged on
    /// Unicode scalars, as the OpenAPI document's pattern is, so a combining mark cannot hide an `@` or a dot.
    static func emailProblem(_ email: String) -> String? {
        if let problem = TextRules.disguisingCharacterProblem(email) { return problem }
        let scalars = Array(email.unicodeScalars)
        let ats = scalars.indices.filter { scalars[$0] == "@" }
        guard scalars.count <= 254, ats.count == 1, !scalars.contains(where: \.properties.isWhitespace) else {
            return "must be an email address like name@example.dz"
        }
        let local = scalars[..<ats[0]]
        let domain = scalars[(ats[0] + 1)...]
        guard !local.isEmpty, domain.contains("."), domain.first != ".", domain.last != "." else {
            return "must be an email address like name@example.dz"
        }
        return nil
    }

    static func neighbourhoodProblem(_ id: String) -> String? {
        Oran.neighbourhoodIDs.contains(id) ? nil : "must be one of: " + Oran.neighbourhoods.map(\.id).joined(separator: ", ")
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension Member {
    /// Whether `text` has the form of a membership id, `PEEZ-YYYYMMDD-NNNNN` (five or more digits at the end),
    /// in ASCII and nothing else: a look-up by anything else finds no one.
    public static func isMembershipID(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        return parts.count == 3 && parts[0] == "PEEZ" && parts[1].count == 8 && parts[1].allSatisfy(\.isASCIIDigit)
            && (5...9).contains(parts[2].count) && parts[2].allSatisfy(\.isASCIIDigit)
    }
}
