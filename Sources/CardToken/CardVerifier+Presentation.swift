extension CardVerifier {
    /// The verdict on a `PEEZP1:` text: the presentation's envelope (steps 1 to 6, 13), the card inside it
    /// (steps 4 to 11), then the binding (14), the device's signature (15) and freshness (16).
    func verifyPresentation(_ text: [UInt8], now: Int64) -> VerificationResult {
        let parts: (protectedHeader: [UInt8], header: CBORValue, payload: [UInt8], signature: [UInt8])
        do throws(CardTokenError) {
            parts = try COSESign1.parts(of: try CBORDecoder.decode(try Self.decodeText(text, prefix: Presentation.prefixBytes)))
            guard try COSESign1.contentType(in: parts.header) == Presentation.contentType else {
                throw CardTokenError(
                    .invalidProtectedHeader,
                    "a presentation's protected header must name the content type \(Presentation.contentType)"
                )
            }
        } catch {
            return Self.refusal(opening: error, step: Self.step(refusing: error, text: text))
        }

        // Step 13: the payload holds the card and the time.
        let presentation: Presentation
        do {
            presentation = try Presentation(payload: parts.payload)
        } catch {
            return VerificationResult(verdict: .malformed, detail: error.reason, step: 13)
        }

        // Steps 4 to 11: the card, as if it had been shown bare.
        let card: COSESign1
        let claimsValue: CBORValue
        do {
            (card, claimsValue) = try Self.openCard(presentation.card)
        } catch {
            var refusal = Self.refusal(opening: error, step: Self.step(refusing: error, text: text))
            refusal.detail = "the card in the presentation: " + refusal.detail
            return refusal
        }
        var result = verify(card, claims: claimsValue, now: now)
        guard result.verdict == .valid, let claims = result.claims else { return result }

        // Step 14: the card is bound to a device.
        guard let deviceKey = claims.deviceKey else {
            result.refuse(.cardNotBound, step: 14, "the card in the presentation is not bound to a device; only a bound card is presented")
            return result
        }

        // Step 15: that device signed the presentation.
        let input = COSESign1.signatureInput(protectedHeader: parts.protectedHeader, payload: parts.payload)
        guard let key = trustedKeys.entries(for: card.keyID).first?.key.keyOfSameKind(rawRepresentation: deviceKey.rawRepresentation),
            key.isValidSignature(parts.signature, for: input)
        else {
            result.refuse(
                .badDeviceSignature,
                step: 15,
                "the presentation is not signed by the device key the card is bound to (\(deviceKey.base64url))"
            )
            return result
        }
        result.presentedAt = presentation.madeAt

        // Step 16: it was made within the window around now.
        if presentation.madeAt < presentationWindow.oldest(at: now) {
            result.refuse(
                .stalePresentation,
                step: 16,
                "the presentation was made \(Self.display(presentation.madeAt)), \(now - presentation.madeAt) s ago; at most \(now - presentationWindow.oldest(at: now)) s is accepted: ask for the live card on the member's phone"
            )
        } else if presentation.madeAt > presentationWindow.newest(at: now) {
            result.refuse(
                .futurePresentation,
                step: 16,
                "the presentation was made \(Self.display(presentation.madeAt)), \(presentation.madeAt - now) s ahead of this device's clock (at most \(presentationWindow.skew) s): check the phone's clock and this one's"
            )
        }
        return result
    }
}

extension VerificationResult {
    /// Turns an authentic card's result into a refusal by `verdict` at `step`.
    mutating func refuse(_ verdict: Verdict, step: Int, _ detail: String) {
        self.verdict = verdict
        self.step = step
        self.detail = detail
    }
}
