import CardCrypto
import CardToken
import Testing

@Suite("Keys in use")
struct SharedKeyTests {
    /// A real OpenSSL key that claims another kid, to build the (astronomically rare) case of two
    /// trusted keys sharing one kid.
    struct KeyUnderAnotherKid: CardVerificationKey {
        let key: Ed25519PublicKey
        let keyID: KeyID
        func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
            key.isValidSignature(signature, for: message)
        }
        func keyOfSameKind(rawRepresentation: [UInt8]) -> (any CardVerificationKey)? {
            key.keyOfSameKind(rawRepresentation: rawRepresentation)
        }
    }

    @Test func keysSharingAKidAreEachTried() throws {
        let signer = try Ed25519PrivateKey.generate()
        let impostor = KeyUnderAnotherKid(key: try Ed25519PrivateKey.generate().publicKey, keyID: signer.keyID)
        let token = try CardIssuer(signingKey: signer).issue(CardClaims(subject: "PEEZ-20251103-00002", expiresAt: 2_000, issuedAt: 1_000))

        let impostorFirst = CardVerifier(trustedKeys: TrustedKeySet([impostor, signer.publicKey]))
        #expect(impostorFirst.verify(token, now: 1_500).verdict == .valid)
        let impostorOnly = CardVerifier(trustedKeys: TrustedKeySet([impostor]))
        #expect(impostorOnly.verify(token, now: 1_500).verdict == .badSignature)
    }

    @Test func oneKeySignsAndVerifiesFromManyTasksAtOnce() async throws {
        let key = try Ed25519PrivateKey.generate()
        let issuer = CardIssuer(signingKey: key)
        let verifier = CardVerifier(trustedKeys: TrustedKeySet([key.publicKey]))
        let verdicts = try await withThrowingTaskGroup(of: Verdict.self) { group in
            for index in 0..<64 {
                group.addTask {
                    var last = Verdict.valid
                    for round in 0..<20 {
                        let claims = CardClaims(subject: "PEEZ-20251103-\(index)-\(round)", expiresAt: 2_000, issuedAt: 1_000)
                        last = verifier.verify(try issuer.issue(claims), now: 1_500).verdict
                        if last != .valid { break }
                    }
                    return last
                }
            }
            return try await group.reduce(into: [Verdict]()) { $0.append($1) }
        }
        #expect(verdicts.count == 64 && verdicts.allSatisfy { $0 == .valid })
    }

    @Test func privateKeyDescriptionShowsNoSecret() throws {
        let key = try Ed25519PrivateKey.generate()
        let pem = try key.pemRepresentation()
        let body = pem.split(separator: "\n")[1]
        #expect(!String(describing: key).contains(body))
        #expect(String(describing: key).contains(key.keyID.hex))
    }
}
