import CardToken

/// What a card token itself says (its CWT claims, read without checking its signature: the run only asks what
/// the card shows), through the card core's decoders of its published format (Base45, COSE_Sign1, CWT), which
/// their own test vectors hold to the specification.
struct CardReading {
    /// The name printed on the card.
    let name: String
    /// The phone key it is bound to (base64url), or "none".
    let deviceKey: String

    init?(token: String) {
        let text = Array(token.utf8)
        guard text.starts(with: Array(CardTokenFormat.prefix.utf8)),
            let bytes = try? Base45.decode(text.dropFirst(CardTokenFormat.prefix.utf8.count)),
            let envelope = try? COSESign1(cbor: try CBORDecoder.decode(bytes)),
            let claims = try? CardClaims(cbor: try CBORDecoder.decode(envelope.payload))
        else { return nil }
        name = claims.name ?? ""
        deviceKey = claims.deviceKey?.base64url ?? "none"
    }
}
