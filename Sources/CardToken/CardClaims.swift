/// The CWT claims a card carries (RFC 8392 keys, plus a private `name` claim).
public struct CardClaims: Hashable, Sendable {
    /// The only issuer a PEEZ card may name.
    public static let issuer = "PEEZ"
    /// The longest display name, in UTF-8 bytes.
    public static let maxNameBytes = 128

    /// CWT claim keys used by the card.
    public enum Key {
        public static let issuer: Int64 = 1
        public static let subject: Int64 = 2
        public static let expiration: Int64 = 4
        public static let issuedAt: Int64 = 6
        public static let tokenID: Int64 = 7
        /// `cnf` (RFC 8747): the device key a bound card must be presented with.
        public static let confirmation: Int64 = 8
        public static let name: Int64 = -65537
    }

    /// `sub`: the membership id, e.g. `PEEZ-20251103-00002`.
    public var subject: String
    /// `exp`: the end of the paid period, in seconds since the epoch.
    public var expiresAt: Int64
    /// `iat`: when the token was signed, in seconds since the epoch.
    public var issuedAt: Int64
    /// `cti`: the random token id.
    public var tokenID: TokenID
    /// The member's display name, if the card shows one.
    public var name: String?
    /// `cnf`: the member's device key. A card that names one is bound: it is accepted only inside a fresh
    /// presentation signed by that key.
    public var deviceKey: DeviceKey?

    public init(
        subject: String,
        expiresAt: Int64,
        issuedAt: Int64,
        tokenID: TokenID = .random(),
        name: String? = nil,
        deviceKey: DeviceKey? = nil
    ) {
        self.subject = subject
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
        self.tokenID = tokenID
        self.name = name
        self.deviceKey = deviceKey
    }

    /// As much of `name` as a card shows: whole characters, at most ``maxNameBytes`` of UTF-8.
    public static func fittingName(_ name: String) -> String {
        guard name.utf8.count > maxNameBytes else { return name }
        var fitted = ""
        var bytes = 0
        for character in name {
            bytes += character.utf8.count
            guard bytes <= maxNameBytes else { break }
            fitted.append(character)
        }
        return fitted
    }

    /// Throws `invalidClaims` unless these claims may be put in a card.
    public func validate() throws(CardTokenError) {
        guard !subject.isEmpty else {
            throw CardTokenError(.invalidClaims, "the membership id (sub) is empty")
        }
        guard expiresAt >= 0, issuedAt >= 0 else {
            throw CardTokenError(.invalidClaims, "the expiry and issued-at times must not be before 1970")
        }
        if let name, name.utf8.count > Self.maxNameBytes {
            throw CardTokenError(.invalidClaims, "the name is \(name.utf8.count) UTF-8 bytes; at most \(Self.maxNameBytes) fit on a card")
        }
    }

    /// The claims as a CBOR map.
    public var cborValue: CBORValue {
        var entries = [
            CBORMapEntry(.int(Key.issuer), .text(Self.issuer)),
            CBORMapEntry(.int(Key.subject), .text(subject)),
            CBORMapEntry(.int(Key.expiration), .unsigned(UInt64(clamping: expiresAt))),
            CBORMapEntry(.int(Key.issuedAt), .unsigned(UInt64(clamping: issuedAt))),
            CBORMapEntry(.int(Key.tokenID), .bytes(tokenID.bytes)),
        ]
        if let deviceKey { entries.append(CBORMapEntry(.int(Key.confirmation), deviceKey.confirmationClaim)) }
        if let name { entries.append(CBORMapEntry(.int(Key.name), .text(name))) }
        return .map(entries)
    }

    /// Reads claims from a decoded payload, ignoring unknown claim keys (verification step 9).
    public init(cbor: CBORValue) throws(CardTokenError) {
        guard case .map(let entries) = cbor else {
            throw CardTokenError(.invalidClaims, "the payload is not a CBOR map of claims")
        }
        func claim(_ key: Int64) -> CBORValue? {
            entries.first(where: { $0.key.int64Value == key })?.value
        }
        guard case .text(let issuer)? = claim(Key.issuer) else {
            throw CardTokenError(.invalidClaims, "the issuer claim (1) is missing or not text")
        }
        guard issuer == Self.issuer else {
            throw CardTokenError(.invalidClaims, "the issuer is \"\(issuer.prefix(32))\", not \"\(Self.issuer)\"")
        }
        guard case .text(let subject)? = claim(Key.subject), !subject.isEmpty else {
            throw CardTokenError(.invalidClaims, "the membership id claim (2) is missing, empty or not text")
        }
        guard case .unsigned(let expiry)? = claim(Key.expiration), let expiresAt = Int64(exactly: expiry) else {
            throw CardTokenError(.invalidClaims, "the expiry claim (4) is missing, not an unsigned integer or beyond 2^63 - 1")
        }
        guard case .unsigned(let issued)? = claim(Key.issuedAt), let issuedAt = Int64(exactly: issued) else {
            throw CardTokenError(.invalidClaims, "the issued-at claim (6) is missing, not an unsigned integer or beyond 2^63 - 1")
        }
        guard case .bytes(let tokenBytes)? = claim(Key.tokenID), let tokenID = TokenID(bytes: tokenBytes) else {
            throw CardTokenError(.invalidClaims, "the token id claim (7) is missing or not 8 bytes")
        }
        var name: String? = nil
        if let value = claim(Key.name) {
            guard case .text(let text) = value else {
                throw CardTokenError(.invalidClaims, "the name claim (-65537) is not text")
            }
            name = text
        }
        let deviceKey = try claim(Key.confirmation).map { value throws(CardTokenError) in try DeviceKey(confirmationClaim: value) }
        self.init(subject: subject, expiresAt: expiresAt, issuedAt: issuedAt, tokenID: tokenID, name: name, deviceKey: deviceKey)
        try validate()
    }
}
