import CardCrypto
import CardToken
import Foundation
import Testing

@Suite("Shared test vectors")
struct CardTokenVectorTests {
    @Test("every vector gets its expected verdict", arguments: VectorManifest.shared.vectors.map(\.id))
    func vectorGetsExpectedVerdict(id: String) throws {
        let manifest = VectorManifest.shared
        let vector = try #require(manifest.vectors.first { $0.id == id })
        let result = try manifest.verifier(for: vector).verify(vector.token, now: vector.now)

        #expect(result.verdict.rawValue == vector.expected.verdict, "\(vector.description): \(result.detail)")
        #expect(
            result.step == vector.expected.step,
            "\(vector.description): refused at step \(result.step.map(String.init) ?? "none"), not \(vector.expected.step.map(String.init) ?? "none"): \(result.detail)"
        )
        if vector.expected.verdict != "valid" { #expect(vector.expected.step != nil, "every refusal names its step") }
        if let kid = vector.expected.kid { #expect(result.keyID?.hex == kid) }
        if let sub = vector.expected.sub {
            let claims = try #require(result.claims)
            #expect(claims.subject == sub)
            #expect(claims.expiresAt == vector.expected.exp)
            #expect(claims.issuedAt == vector.expected.iat)
            #expect(claims.tokenID.hex == vector.expected.cti)
            #expect(claims.name == vector.expected.name)
        } else {
            #expect(result.claims == nil, "claims are shown only when the signature verified")
        }
    }

    @Test("the vectors cover every reason code")
    func vectorsCoverEveryVerdict() {
        let covered = Set(VectorManifest.shared.vectors.map(\.expected.verdict))
        #expect(covered == Set(Verdict.allCases.map(\.rawValue)))
    }

    @Test("the Swift issuer writes the valid vectors byte for byte")
    func issuerReproducesIndependentVectors() throws {
        let issuers = [
            "primary": CardIssuer(signingKey: try VectorManifest.signingKey("primary")),
            "other": CardIssuer(signingKey: try VectorManifest.signingKey("other")),
        ]
        let reproducible = VectorManifest.shared.vectors.filter {
            $0.expected.verdict == "valid" && !$0.id.contains("unknown-claim")
        }
        #expect(reproducible.count >= 6)
        for vector in reproducible {
            let claims = CardClaims(
                subject: vector.expected.sub!,
                expiresAt: vector.expected.exp!,
                issuedAt: vector.expected.iat!,
                tokenID: TokenID(hex: vector.expected.cti!)!,
                name: vector.expected.name
            )
            let issuer = vector.expected.kid == issuers["primary"]!.signingKey.keyID.hex ? issuers["primary"]! : issuers["other"]!
            let trimmed = vector.token.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(try issuer.issue(claims) == trimmed, "\(vector.id)")
        }
    }
}
