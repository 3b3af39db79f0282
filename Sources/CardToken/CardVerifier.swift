import PeezBasics

/// Checks card tokens and presentations offline, following the "Verifying" sections of the card-token spec
/// step by step.
///
/// Every input, however broken or hostile, gets exactly one ``VerificationResult``; nothing is allocated
/// beyond the format's bounds.
public struct CardVerifier: Sendable {
    /// The clock-skew allowance used when none is given: five minutes.
    public static let defaultLeeway: Int64 = 300

    /// The keys whose signatures are accepted.
    public var trustedKeys: TrustedKeySet
    /// Cards no longer accepted.
    public var revocations: RevocationList
    /// Seconds of clock skew tolerated on `exp` and `iat`.
    public var leeway: Int64
    /// How far a presentation's time may be from `now`.
    public var presentationWindow: PresentationWindow

    public init(
        trustedKeys: TrustedKeySet,
        revocations: RevocationList = RevocationList(),
        leeway: Int64 = CardVerifier.defaultLeeway,
        presentationWindow: PresentationWindow = .standard
    ) {
        self.trustedKeys = trustedKeys
        self.revocations = revocations
        self.leeway = leeway
        self.presentationWindow = presentationWindow
    }

    /// The verdict on `text` (a card or a presentation) at `now` (seconds since the epoch).
    public func verify(_ text: String, now: Int64) -> VerificationResult {
        var text = text
        return text.withUTF8 { verify(utf8: $0, now: now) }
    }

    /// The verdict on the UTF-8 bytes of a scanned text at `now` (seconds since the epoch).
    public func verify(utf8 text: some Collection<UInt8>, now: Int64) -> VerificationResult {
        // One copy into an array, so that every step below runs specialized for it: called from another
        // module, the generic steps would otherwise read each byte through the collection's witness table.
        verify(bytes: text as? [UInt8] ?? Array(text), now: now)
    }

    func verify(bytes text: [UInt8], now: Int64) -> VerificationResult {
        if text.trimmingASCIIWhitespace().starts(with: Presentation.prefixBytes) {
            return verifyPresentation(text, now: now)
        }
        // Steps 1-6: the text, Base45, CBOR and the envelope.
        let envelope: COSESign1
        let claimsValue: CBORValue
        do {
            (envelope, claimsValue) = try Self.open(text)
        } catch {
            return Self.refusal(opening: error, step: Self.step(refusing: error, text: text))
        }
        var result = verify(envelope, claims: claimsValue, now: now)
        // Step 12: a bound card is accepted only inside a presentation from its device.
        if result.verdict == .valid, result.claims?.deviceKey != nil {
            result = VerificationResult(
                verdict: .presentationRequired,
                detail: "this card is bound to the member's phone and must be shown from it (a presentation), not as a picture of the card",
                keyID: result.keyID,
                claims: result.claims,
                step: 12
            )
        }
        return result
    }

    /// Steps 7 to 11 on an opened card.
    func verify(_ envelope: COSESign1, claims claimsValue: CBORValue, now: Int64) -> VerificationResult {
        let keyID = envelope.keyID

        // Step 7: a trusted key bears the kid.
        let candidates = trustedKeys.entries(for: keyID)
        guard !candidates.isEmpty else {
            return VerificationResult(verdict: .unknownKey, detail: "no trusted key has kid \(keyID)", keyID: keyID, step: 7)
        }

        // Step 8: one of them made the signature.
        let input = envelope.signatureInput
        guard let signer = candidates.first(where: { $0.key.isValidSignature(envelope.signature, for: input) }) else {
            return VerificationResult(
                verdict: .badSignature,
                detail: "the signature does not verify with the \(candidates.count) key(s) of kid \(keyID)",
                keyID: keyID,
                step: 8
            )
        }

        // Step 9: the claims.
        let claims: CardClaims
        do {
            claims = try CardClaims(cbor: claimsValue)
        } catch {
            return VerificationResult(verdict: .badClaims, detail: error.reason, keyID: keyID, step: 9)
        }
        if let reason = signer.window.refusal(issuedAt: claims.issuedAt, leeway: leeway) {
            return VerificationResult(verdict: .badClaims, detail: reason, keyID: keyID, step: 9)
        }

        // Step 10: time. A card that covers no time is never valid, whatever the leeway; then the dates, with it.
        if claims.expiresAt <= claims.issuedAt {
            return VerificationResult(
                verdict: .noPaidPeriod,
                detail: "the card covers no paid time (it expires \(Self.display(claims.expiresAt)), when it was issued)",
                keyID: keyID,
                claims: claims,
                step: 10
            )
        }
        if claims.expiresAt < now.subtractingClamped(leeway) {
            return VerificationResult(verdict: .expired, detail: "expired \(Self.display(claims.expiresAt))", keyID: keyID, claims: claims, step: 10)
        }
        if claims.issuedAt > now.addingClamped(leeway) {
            return VerificationResult(
                verdict: .notYetValid,
                detail: "issued \(Self.display(claims.issuedAt)), later than now (\(Self.display(now)))",
                keyID: keyID,
                claims: claims,
                step: 10
            )
        }

        // Step 11: revocation.
        if let reason = revocations.revocationReason(for: claims) {
            return VerificationResult(verdict: .revoked, detail: reason, keyID: keyID, claims: claims, step: 11)
        }
        return VerificationResult(verdict: .valid, keyID: keyID, claims: claims)
    }

    /// The verdict for an envelope that could not be opened.
    static func refusal(opening error: CardTokenError, step: Int) -> VerificationResult {
        let verdict: Verdict = error.code == .unsupportedAlgorithm ? .unsupportedAlgorithm : .malformed
        return VerificationResult(verdict: verdict, detail: error.reason, step: step)
    }

    /// The step (1 to 6) at which ``open(_:)`` refused `text` with `error`; the payload's CBOR is held to
    /// step 4's rules.
    static func step(refusing error: CardTokenError, text: some Collection<UInt8>) -> Int {
        switch error.code {
        case .missingPrefix: return text.trimmingASCIIWhitespace().isEmpty ? 1 : 2
        case .invalidBase45: return 3
        case .notCOSESign1: return 5
        case .invalidProtectedHeader, .unsupportedAlgorithm: return 6
        default: return 4  // the CBOR rules: bounds, definite lengths, depth, determinism, nothing after the item
        }
    }

    /// Steps 1 to 6, and the strict decoding of the payload: the envelope and its undecoded claims.
    ///
    /// Throws `unsupportedAlgorithm` for a foreign algorithm and another ``CardTokenError`` for anything
    /// malformed. The signature is not checked.
    public static func open(_ text: some Collection<UInt8>) throws(CardTokenError) -> (COSESign1, CBORValue) {
        try openCard(try decodeText(text, prefix: CardTokenFormat.prefixBytes))
    }

    /// Steps 1 to 3: the bytes a `prefix` text carries in Base45.
    static func decodeText(_ text: some Collection<UInt8>, prefix: [UInt8]) throws(CardTokenError) -> [UInt8] {
        let trimmed = text.trimmingASCIIWhitespace()
        guard !trimmed.isEmpty else {
            throw CardTokenError(.missingPrefix, "the text is empty")
        }
        guard trimmed.starts(with: prefix) else {
            throw CardTokenError(
                .missingPrefix,
                "the text does not start with \(CardTokenFormat.prefix) (a card) or \(Presentation.prefix) (a presentation)"
            )
        }
        let base45 = trimmed.dropFirst(prefix.count)
        guard base45.count <= CardTokenFormat.maxBase45Length else {
            throw CardTokenError(
                .sizeLimitExceeded,
                "the text is \(base45.count) characters of Base45; at most \(CardTokenFormat.maxBase45Length) can be a card or a presentation"
            )
        }
        return try Base45.decode(base45)
    }

    /// Steps 4 to 6 on a card's bytes, and the strict decoding of its payload.
    static func openCard(_ bytes: [UInt8]) throws(CardTokenError) -> (COSESign1, CBORValue) {
        let envelope = try COSESign1(cbor: try CBORDecoder.decode(bytes))
        if let contentType = envelope.contentType {
            // A signed document of another kind (a counter bundle) is never a card, whoever signed it.
            throw CardTokenError(.invalidProtectedHeader, "the protected header names a content type (\(contentType.prefix(64))); a card has none")
        }
        let claims: CBORValue
        do {
            claims = try CBORDecoder.decode(envelope.payload)
        } catch {
            throw CardTokenError(error.code, "the payload: \(error.reason)")
        }
        return (envelope, claims)
    }
}

extension CardVerifier {
    /// A time in a detail, as a person reads it: `at 2026-12-31 23:59 (Algiers)`.
    static func display(_ seconds: Int64) -> String {
        "at \(AlgiersCalendar.minuteStamp(seconds)) (Algiers)"
    }
}

extension Collection where Element == UInt8 {
    /// The bytes without ASCII whitespace (space, tab, LF, VT, FF, CR) at either end.
    func trimmingASCIIWhitespace() -> SubSequence {
        func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        guard let first = firstIndex(where: { !isWhitespace($0) }) else { return self[endIndex...] }
        var last = first
        var index = first
        while index != endIndex {
            if !isWhitespace(self[index]) { last = index }
            formIndex(after: &index)
        }
        return self[first...last]
    }
}
