/// Signs claims into `PEEZ1:` card tokens.
public struct CardIssuer: Sendable {
    /// The key every token is signed with.
    public let signingKey: any CardSigningKey
    private let protectedHeader: [UInt8]

    public init(signingKey: any CardSigningKey) {
        self.signingKey = signingKey
        self.protectedHeader = COSESign1.protectedHeader(keyID: signingKey.keyID)
    }

    /// The signed COSE_Sign1 envelope for `claims`.
    public func sign(_ claims: CardClaims) throws(CardTokenError) -> COSESign1 {
        try claims.validate()
        let payload = CBOREncoder.encode(claims.cborValue)
        let input = COSESign1.signatureInput(protectedHeader: protectedHeader, payload: payload)
        let signature: [UInt8]
        do {
            signature = try signingKey.sign(input)
        } catch {
            throw CardTokenError(.signingFailed, "the signing key failed: \(error)")
        }
        guard signature.count == COSESign1.signatureByteCount else {
            throw CardTokenError(.signingFailed, "the signing key returned \(signature.count) bytes, not 64")
        }
        return COSESign1(protectedHeader: protectedHeader, payload: payload, signature: signature, keyID: signingKey.keyID)
    }

    /// The card token text for `claims`: `PEEZ1:` followed by the Base45 envelope.
    public func issue(_ claims: CardClaims) throws(CardTokenError) -> String {
        var text = CardTokenFormat.prefixBytes
        Base45.encode(try sign(claims).encoded(), into: &text)
        return String(decoding: text, as: UTF8.self)
    }
}
