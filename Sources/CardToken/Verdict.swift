/// The one verdict every scanned text gets, with the spec's reason codes as raw values.
public enum Verdict: String, Sendable, CaseIterable, Codable {
    case valid
    case malformed
    case unsupportedAlgorithm = "unsupported_algorithm"
    case unknownKey = "unknown_key"
    case badSignature = "bad_signature"
    case badClaims = "bad_claims"
    case expired
    /// The card covers no paid time: its expiry is not after its issue time.
    case noPaidPeriod = "no_paid_period"
    case notYetValid = "not_yet_valid"
    case revoked
    /// A bound card shown bare: it must be shown from the member's phone, in a presentation.
    case presentationRequired = "presentation_required"
    /// A presentation wrapping a card that is not bound to a device.
    case cardNotBound = "card_not_bound"
    /// A presentation not signed by the device key its card is bound to.
    case badDeviceSignature = "bad_device_signature"
    /// A presentation made before the counter's window: a picture of an old one.
    case stalePresentation = "stale_presentation"
    /// A presentation made after the counter's window: one of the two clocks is wrong.
    case futurePresentation = "future_presentation"

    /// A short phrase for a person at the counter.
    public var summary: String {
        switch self {
        case .valid: return "VALID card"
        case .malformed: return "NOT a PEEZ card (unreadable)"
        case .unsupportedAlgorithm: return "NOT accepted (unsupported signature algorithm)"
        case .unknownKey: return "NOT accepted (signed by an unknown key: sync the key set)"
        case .badSignature: return "FORGED or damaged card (signature does not match)"
        case .badClaims: return "NOT accepted (card contents are invalid)"
        case .expired: return "EXPIRED card"
        case .noPaidPeriod: return "NO PAID PERIOD (the member has not paid: sell a period)"
        case .notYetValid: return "NOT YET valid (check the device clock)"
        case .revoked: return "REVOKED card"
        case .presentationRequired: return "SHOW IT FROM THE PHONE (this card must be shown live from the member's phone)"
        case .cardNotBound: return "NOT accepted (a presentation of a card not bound to a phone)"
        case .badDeviceSignature: return "FORGED presentation (not signed by the member's phone)"
        case .stalePresentation: return "OLD presentation (a picture or screenshot: ask for the live card on the phone)"
        case .futurePresentation: return "NOT accepted (the presentation is ahead of this clock: check both clocks)"
        }
    }
}

/// What verifying one text found.
public struct VerificationResult: Sendable, Hashable {
    /// The verdict.
    public var verdict: Verdict
    /// Why, in words, for logs and for a person; empty for a valid card.
    public var detail: String
    /// The kid, once the protected header was read.
    public var keyID: KeyID?
    /// The claims, present only when the signature verified and the claims were well formed.
    public var claims: CardClaims?
    /// The step of the spec's "Verifying" sections (1 to 16) that refused the token; nil for a valid one.
    public var step: Int?
    /// When the phone made the presentation (seconds since the epoch), once its device signature verified;
    /// nil for a card shown bare. A card's token id and this time name one presentation.
    public var presentedAt: Int64?

    public init(verdict: Verdict, detail: String = "", keyID: KeyID? = nil, claims: CardClaims? = nil, step: Int? = nil, presentedAt: Int64? = nil) {
        self.verdict = verdict
        self.detail = detail
        self.keyID = keyID
        self.claims = claims
        self.step = step
        self.presentedAt = presentedAt
    }

    /// Whether the card was signed by a trusted key, whatever its dates or revocation say.
    /// An expired but authentic card still identifies its member.
    public var isAuthentic: Bool { claims != nil }
}
