import Foundation
import PeezBasics

/// A member's card as an Apple Wallet store card: what `pass.json` says, and the localized labels.
public struct MembershipPass: Sendable, Hashable {
    /// The pass's serial number: the member's uuid, lower case.
    public var serialNumber: String
    public var memberName: String
    public var membershipID: String
    /// The current card token, exactly the text the card's QR PNG holds; nil when the member's cards are bound to a phone: a static barcode
    /// would be refused at every counter, so the pass shows none and tells the member to show the card in the app.
    public var cardToken: String?
    /// When the paid time ends (seconds since the epoch); nil for a member who never paid.
    public var coverageEnd: Int64?
    /// The card no longer stands (cancelled, revoked): Wallet shows the pass as void.
    public var voided: Bool
    /// The secret Wallet sends back to the web service for this pass.
    public var authenticationToken: String
    /// Where Wallet registers for updates and fetches the latest pass.
    public var webServiceURL: String
    /// The renewal reminder the pass carries (`7d`, `3d`, `1d` or `ended`), nil when none: the coverage field then
    /// says how soon the paid time ends, and Wallet shows the change with the reminder's message.
    public var reminder: String?

    public init(
        serialNumber: String,
        memberName: String,
        membershipID: String,
        cardToken: String?,
        coverageEnd: Int64?,
        voided: Bool,
        authenticationToken: String,
        webServiceURL: String,
        reminder: String? = nil
    ) {
        self.serialNumber = serialNumber
        self.memberName = memberName
        self.membershipID = membershipID
        self.cardToken = cardToken
        self.coverageEnd = coverageEnd
        self.voided = voided
        self.authenticationToken = authenticationToken
        self.webServiceURL = webServiceURL
        self.reminder = reminder
    }

    /// `pass.json` for the pass type and team of the signing identity, keys sorted.
    public func json(passTypeIdentifier: String, teamIdentifier: String, now: Int64) throws -> [UInt8] {
        let end = coverageEnd.map(AlgiersCalendar.iso8601)
        let barcode = cardToken.map { Barcode(format: "PKBarcodeFormatQR", message: $0, messageEncoding: "iso-8859-1", altText: membershipID) }
        let document = Document(
            formatVersion: 1,
            passTypeIdentifier: passTypeIdentifier,
            teamIdentifier: teamIdentifier,
            serialNumber: serialNumber,
            organizationName: "PEEZ",
            description: "DESCRIPTION",
            foregroundColor: "rgb(255, 255, 255)",
            backgroundColor: "rgb(18, 44, 37)",
            labelColor: "rgb(150, 214, 190)",
            authenticationToken: authenticationToken,
            webServiceURL: webServiceURL,
            expirationDate: end ?? AlgiersCalendar.iso8601(now),
            voided: voided || cardToken == nil,
            barcodes: barcode.map { [$0] },
            barcode: barcode,
            storeCard: Fields(
                primaryFields: [Field(key: "member", label: "MEMBER", value: memberName)],
                secondaryFields: [cardToken == nil ? Self.showInAppField : coverageField(end: end)],
                auxiliaryFields: [Field(key: "membership_id", label: "MEMBERSHIP_ID", value: membershipID)],
                backFields: [Field(key: "about", label: "ABOUT", value: "ABOUT_TEXT")]
            )
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(document))
    }

    /// The coverage field: the end date (a renewal's change shown as "Paid until …"), or, while a reminder is on
    /// the pass, how soon it ends (shown with the reminder's message).
    func coverageField(end: String?) -> Field {
        if let reminder, let key = Self.reminderValues[reminder] {
            return Field(key: "coverage_end", label: "PAID_UNTIL", value: key, changeMessage: "REMINDER")
        }
        return Field(
            key: "coverage_end",
            label: "PAID_UNTIL",
            value: end ?? "NOT_PAID",
            dateStyle: end == nil ? nil : "PKDateStyleMedium",
            changeMessage: "COVERAGE_CHANGED"
        )
    }

    /// The coverage field's value for each reminder threshold: a key of the strings.
    /// What a pass without a barcode says in its coverage's place.
    static let showInAppField = Field(key: "coverage_end", label: "PAID_UNTIL", value: "SHOW_IN_APP", changeMessage: "SHOW_IN_APP_CHANGED")

    static let reminderValues = ["7d": "ENDS_IN_7_DAYS", "3d": "ENDS_IN_3_DAYS", "1d": "ENDS_TOMORROW", "ended": "ENDED"]

    struct Document: Encodable {
        var formatVersion: Int
        var passTypeIdentifier: String
        var teamIdentifier: String
        var serialNumber: String
        var organizationName: String
        var description: String
        var foregroundColor: String
        var backgroundColor: String
        var labelColor: String
        var authenticationToken: String
        var webServiceURL: String
        var expirationDate: String
        var voided: Bool
        var barcodes: [Barcode]?
        /// The single barcode of passes before iOS 9, for older phones.
        var barcode: Barcode?
        var storeCard: Fields
    }

    struct Barcode: Encodable {
        var format: String
        var message: String
        var messageEncoding: String
        var altText: String
    }

    struct Fields: Encodable {
        var primaryFields: [Field]
        var secondaryFields: [Field]
        var auxiliaryFields: [Field]
        var backFields: [Field]
    }

    struct Field: Encodable {
        var key: String
        var label: String
        var value: String
        var dateStyle: String?
        var changeMessage: String?
    }

    /// The localized strings of the pass's labels, by language (`en`, `fr`, `ar`): what `pass.strings` holds.
    public static let strings: [String: [(String, String)]] = [
        "en": [
            ("DESCRIPTION", "PEEZ membership card"), ("MEMBER", "Member"), ("PAID_UNTIL", "Paid until"), ("NOT_PAID", "Not paid"),
            ("MEMBERSHIP_ID", "Membership"), ("ABOUT", "PEEZ"),
            ("ABOUT_TEXT", "5 to 8 % off at PEEZ partner shops in Oran. Renew in cash at any partner shop: 300 DZD a month."),
            ("COVERAGE_CHANGED", "Paid until %@"),
            ("ENDS_IN_7_DAYS", "ends in 7 days"), ("ENDS_IN_3_DAYS", "ends in 3 days"), ("ENDS_TOMORROW", "ends tomorrow"),
            ("ENDED", "has ended"),
            ("SHOW_IN_APP", "Show your card from the PEEZ app"),
            ("SHOW_IN_APP_CHANGED", "Your card is now on your phone: show it from the PEEZ app; this pass is no longer scanned."),
            ("REMINDER", "Your PEEZ membership %@: renew in cash at any partner shop."),
        ],
        "fr": [
            ("DESCRIPTION", "Carte de membre PEEZ"), ("MEMBER", "Membre"), ("PAID_UNTIL", "Payé jusqu'au"), ("NOT_PAID", "Non payé"),
            ("MEMBERSHIP_ID", "Adhésion"), ("ABOUT", "PEEZ"),
            (
                "ABOUT_TEXT",
                "5 à 8 % de remise chez les commerces partenaires PEEZ à Oran. Renouvelez en espèces chez tout partenaire : 300 DA par mois."
            ),
            ("COVERAGE_CHANGED", "Payé jusqu'au %@"),
            ("ENDS_IN_7_DAYS", "se termine dans 7 jours"), ("ENDS_IN_3_DAYS", "se termine dans 3 jours"), ("ENDS_TOMORROW", "se termine demain"),
            ("ENDED", "est terminée"),
            ("SHOW_IN_APP", "Présentez votre carte depuis l'application PEEZ"),
            (
                "SHOW_IN_APP_CHANGED",
                "Votre carte est désormais sur votre téléphone : présentez-la depuis l'application PEEZ ; ce pass n'est plus scanné."
            ),
            ("REMINDER", "Votre adhésion PEEZ %@ : renouvelez en espèces chez un commerce partenaire."),
        ],
        "ar": [
            ("DESCRIPTION", "بطاقة عضوية PEEZ"), ("MEMBER", "العضو"), ("PAID_UNTIL", "مدفوع حتى"), ("NOT_PAID", "غير مدفوع"),
            ("MEMBERSHIP_ID", "رقم العضوية"), ("ABOUT", "PEEZ"),
            ("ABOUT_TEXT", "تخفيض من 5 إلى 8 % لدى المحلات الشريكة لـ PEEZ في وهران. جدّد نقدًا لدى أي محل شريك: 300 دج شهريًا."),
            ("COVERAGE_CHANGED", "مدفوع حتى %@"),
            ("ENDS_IN_7_DAYS", "تنتهي بعد 7 أيام"), ("ENDS_IN_3_DAYS", "تنتهي بعد 3 أيام"), ("ENDS_TOMORROW", "تنتهي غدًا"), ("ENDED", "انتهت"),
            ("SHOW_IN_APP", "اعرض بطاقتك من تطبيق PEEZ"),
            ("SHOW_IN_APP_CHANGED", "بطاقتك الآن على هاتفك: اعرضها من تطبيق PEEZ؛ لم تعد هذه البطاقة تُمسح."),
            ("REMINDER", "عضويتك في PEEZ %@: جدّدها نقدًا لدى أي محل شريك."),
        ],
    ]

    /// One language's `pass.strings`: `"KEY" = "value";` lines, UTF-16 with a byte order mark, as Wallet reads
    /// strings files.
    public static func stringsFile(_ language: String) -> [UInt8] {
        let lines = (strings[language] ?? []).map { key, value in "\"\(escaped(key))\" = \"\(escaped(value))\";\n" }.joined()
        var out: [UInt8] = [0xFF, 0xFE]
        for unit in lines.utf16 { out += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        return out
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
    }
}
