import PeezBasics

/// The Ed25519 public key of a member's phone, which a bound card carries in its `cnf` claim (RFC 8747) and
/// which must sign every presentation of that card.
public struct DeviceKey: Hashable, Sendable {
    /// The length of a raw Ed25519 public key.
    public static let byteCount = 32
    /// The raw 32-byte public key (RFC 8032 encoding).
    public let rawRepresentation: [UInt8]

    /// A device key from its raw 32 bytes, or `invalidClaims` naming what is wrong: another length, a
    /// non-canonical encoding, or one of the points of small order, with which a signature proves nothing.
    public init(rawRepresentation raw: [UInt8]) throws(CardTokenError) {
        guard raw.count == Self.byteCount else {
            throw CardTokenError(.invalidClaims, "an Ed25519 public key is \(Self.byteCount) bytes, not \(raw.count)")
        }
        guard !Self.isNonCanonical(raw) else {
            throw CardTokenError(.invalidClaims, "the key's y coordinate is not reduced modulo 2^255 - 19 (a non-canonical encoding)")
        }
        guard !Self.hasSmallOrder(raw) else {
            throw CardTokenError(.invalidClaims, "the key is a point of small order, which anyone can forge signatures for")
        }
        rawRepresentation = raw
    }

    /// The key as base64url without padding (43 characters), as the device-key route takes it.
    public var base64url: String { Base64URL.encode(rawRepresentation) }

    /// A device key from base64url text (no padding), or `invalidClaims` naming what is wrong.
    public init(base64url text: String) throws(CardTokenError) {
        guard let raw = Base64URL.decode(text) else {
            throw CardTokenError(.invalidClaims, "the key is not base64url without padding (A-Z, a-z, 0-9, - and _)")
        }
        try self.init(rawRepresentation: raw)
    }

    // MARK: The cnf claim

    enum COSEKeyLabel {
        static let keyType: Int64 = 1
        static let curve: Int64 = -1
        static let x: Int64 = -2
    }
    /// COSE key type OKP (RFC 9053 §7.2) and curve Ed25519 (§7.1).
    static let keyTypeOKP: Int64 = 1
    static let curveEd25519: Int64 = 6
    /// The confirmation method `COSE_Key` inside a `cnf` claim (RFC 8747 §3.1).
    static let confirmationCOSEKey: Int64 = 1

    /// The `cnf` claim's value: `{1: {1: 1, -1: 6, -2: x}}`, a COSE_Key of type OKP on Ed25519.
    public var confirmationClaim: CBORValue {
        .map([
            CBORMapEntry(
                .int(Self.confirmationCOSEKey),
                .map([
                    CBORMapEntry(.int(COSEKeyLabel.keyType), .int(Self.keyTypeOKP)),
                    CBORMapEntry(.int(COSEKeyLabel.curve), .int(Self.curveEd25519)),
                    CBORMapEntry(.int(COSEKeyLabel.x), .bytes(rawRepresentation)),
                ])
            )
        ])
    }

    /// Reads a `cnf` claim: exactly `{1: COSE_Key}` whose COSE_Key is exactly kty OKP, crv Ed25519 and a 32-byte
    /// x. Anything else (another confirmation method, key type or curve, an extra parameter) is refused:
    /// a verifier must never guess which key binds the card.
    public init(confirmationClaim value: CBORValue) throws(CardTokenError) {
        guard case .map(let methods) = value, methods.count == 1,
            methods[0].key.int64Value == Self.confirmationCOSEKey, case .map(let parameters) = methods[0].value
        else {
            throw CardTokenError(.invalidClaims, "the confirmation claim (8) must be a map holding only a COSE_Key (1)")
        }
        guard parameters.count == 3,
            parameters.first(where: { $0.key.int64Value == COSEKeyLabel.keyType })?.value.int64Value == Self.keyTypeOKP,
            parameters.first(where: { $0.key.int64Value == COSEKeyLabel.curve })?.value.int64Value == Self.curveEd25519,
            case .bytes(let x)? = parameters.first(where: { $0.key.int64Value == COSEKeyLabel.x })?.value
        else {
            throw CardTokenError(.invalidClaims, "the confirmation key must be exactly {1: 1 (OKP), -1: 6 (Ed25519), -2: x}")
        }
        do {
            try self.init(rawRepresentation: x)
        } catch {
            throw CardTokenError(.invalidClaims, "the confirmation key: \(error.reason)")
        }
    }

    // MARK: Weak keys

    /// Whether the encoded y is p = 2^255 - 19 or more (the sign bit aside).
    static func isNonCanonical(_ raw: [UInt8]) -> Bool {
        raw[0] >= 0xED && raw[1...30].allSatisfy { $0 == 0xFF } && raw[31] & 0x7F == 0x7F
    }

    /// The encodings of the eight points of order dividing 8 (as libsodium lists them), compared without the
    /// sign bit; the non-canonical ones are refused before.
    private static let smallOrderPoints: [[UInt8]] = [
        "0000000000000000000000000000000000000000000000000000000000000000",
        "0100000000000000000000000000000000000000000000000000000000000000",
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    ].map { Hex.decode($0)! }

    static func hasSmallOrder(_ raw: [UInt8]) -> Bool {
        var unsigned = raw
        unsigned[31] &= 0x7F
        return smallOrderPoints.contains(unsigned)
    }
}

extension DeviceKey: Codable {
    /// Written as its base64url text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(base64url)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        do {
            try self.init(base64url: try container.decode(String.self))
        } catch let error as CardTokenError {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.reason)
        }
    }
}
