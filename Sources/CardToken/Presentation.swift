import PeezBasics

/// A presentation of a bound card: `PEEZP1:` and the Base45 of a COSE_Sign1 made by the member's device key
/// over the card and the time the phone made it. The phone makes a new one every display period (30 s), so a
/// picture of one is refused at the counter once its window has passed.
///
/// ```
/// presentation = "PEEZP1:" base45(18([protected, {}, payload, signature]))
/// protected    = bstr {1: -8, 3: "application/peez-presentation"}
/// payload      = bstr {1: card (bstr, the card's COSE_Sign1 bytes), 2: made_at (uint, seconds)}
/// ```
public struct Presentation: Sendable, Hashable {
    /// Every presentation's text starts with this.
    public static let prefix = "PEEZP1:"
    static let prefixBytes: [UInt8] = Array(prefix.utf8)
    /// The content type in the protected header: what tells a presentation's signature from any other the
    /// device key could make.
    public static let contentType = "application/peez-presentation"
    /// How often the phone makes a new presentation, in seconds.
    public static let displayPeriod: Int64 = 30

    enum PayloadKey {
        static let card: Int64 = 1
        static let madeAt: Int64 = 2
    }

    /// The card's COSE_Sign1 bytes, exactly as the issuer signed them.
    public var card: [UInt8]
    /// When the phone made the presentation, by its clock (seconds since the epoch).
    public var madeAt: Int64

    public init(card: [UInt8], madeAt: Int64) {
        self.card = card
        self.madeAt = madeAt
    }

    /// The payload: `{1: card, 2: made_at}`, deterministically encoded.
    public var payload: [UInt8] {
        CBOREncoder.encode(.map([CBORMapEntry(.int(PayloadKey.card), .bytes(card)), CBORMapEntry(.int(PayloadKey.madeAt), .int(madeAt))]))
    }

    /// The protected header every presentation carries.
    public static let protectedHeader: [UInt8] = CBOREncoder.encode(
        .map([
            CBORMapEntry(.int(COSESign1.HeaderKey.algorithm), .int(COSESign1.algorithmEdDSA)),
            CBORMapEntry(.int(COSESign1.HeaderKey.contentType), .text(contentType)),
        ])
    )

    /// Reads a presentation's payload (verification step 13): a strict map of exactly a byte string under 1 and
    /// a time under 2. `notCOSESign1` names what is wrong.
    init(payload bytes: [UInt8]) throws(CardTokenError) {
        let value: CBORValue
        do {
            value = try CBORDecoder.decode(bytes)
        } catch {
            throw CardTokenError(error.code, "the presentation's payload: \(error.reason)")
        }
        guard case .map(let entries) = value, entries.count == 2,
            case .bytes(let card)? = value[.int(PayloadKey.card)],
            case .unsigned(let made)? = value[.int(PayloadKey.madeAt)], let madeAt = Int64(exactly: made)
        else {
            throw CardTokenError(.notCOSESign1, "the presentation's payload must be exactly {1: the card's bytes, 2: the time it was made}")
        }
        self.init(card: card, madeAt: madeAt)
    }
}

/// Makes presentations of one bound card with the device key it names: what the member's phone does every
/// display period.
public struct PresentationMaker: Sendable {
    /// The device's private key.
    public let deviceKey: any CardSigningKey
    /// The card's COSE_Sign1 bytes.
    public let card: [UInt8]
    /// The card's claims, read (not verified: the phone holds what the service sent it).
    public let claims: CardClaims

    /// A maker for `cardToken` (a `PEEZ1:` text), which must be bound to `publicKey`, the public half of
    /// `deviceKey`. Throws when the text is not a card, the card is not bound, or it is bound to another key.
    public init(cardToken: String, deviceKey: any CardSigningKey, publicKey: DeviceKey) throws(CardTokenError) {
        let (envelope, claimsValue) = try CardVerifier.open(Array(cardToken.utf8))
        let claims = try CardClaims(cbor: claimsValue)
        guard let bound = claims.deviceKey else {
            throw CardTokenError(.invalidClaims, "the card is not bound to a device: register the device key, then fetch the card again")
        }
        guard bound == publicKey else {
            throw CardTokenError(
                .invalidClaims,
                "the card is bound to another device key (\(bound.base64url)), not this one (\(publicKey.base64url)): fetch the card again after registering this key"
            )
        }
        self.deviceKey = deviceKey
        self.card = envelope.encoded()
        self.claims = claims
    }

    /// The presentation made at `now`, as text.
    public func present(at now: Int64) throws(CardTokenError) -> String {
        let presentation = Presentation(card: card, madeAt: now)
        let payload = presentation.payload
        let input = COSESign1.signatureInput(protectedHeader: Presentation.protectedHeader, payload: payload)
        let signature: [UInt8]
        do {
            signature = try deviceKey.sign(input)
        } catch {
            throw CardTokenError(.signingFailed, "the device key failed: \(error)")
        }
        var out: [UInt8] = []
        CBOREncoder.writeHead(major: 6, argument: COSESign1.tag, into: &out)
        CBOREncoder.encode(
            .array([.bytes(Presentation.protectedHeader), .map([]), .bytes(payload), .bytes(signature)]),
            into: &out
        )
        var text = Presentation.prefixBytes
        Base45.encode(out, into: &text)
        return String(decoding: text, as: UTF8.self)
    }
}

/// How far a presentation's time may be from the counter's clock: `skew` either way, plus the display period
/// on the old side (a presentation is shown for that long after it is made).
public struct PresentationWindow: Sendable, Hashable {
    /// Seconds of clock difference tolerated between the phone and the counter (30 by default).
    public var skew: Int64
    /// Seconds a phone shows one presentation (30 by default).
    public var displayPeriod: Int64

    public init(skew: Int64 = 30, displayPeriod: Int64 = Presentation.displayPeriod) {
        self.skew = skew
        self.displayPeriod = displayPeriod
    }

    /// The default: ±30 s, plus 30 s of display.
    public static let standard = PresentationWindow()

    /// The oldest `made_at` accepted at `now`.
    public func oldest(at now: Int64) -> Int64 { now.subtractingClamped(skew.addingClamped(displayPeriod)) }
    /// The newest `made_at` accepted at `now`.
    public func newest(at now: Int64) -> Int64 { now.addingClamped(skew) }
}
