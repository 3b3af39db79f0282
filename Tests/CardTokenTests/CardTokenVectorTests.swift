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
        #expect(result.presentedAt == vector.expected.presented_at)
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
            $0.expected.verdict == "valid" && !$0.id.contains("unknown-claim") && $0.token.contains("PEEZ1:")
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

    @Test("the Swift phone side writes the presentation vectors byte for byte")
    func presentationMakerReproducesIndependentVectors() throws {
        let device = try VectorManifest.signingKey("device")
        let publicKey = try DeviceKey(rawRepresentation: device.publicKey.rawRepresentation)
        let issuer = CardIssuer(signingKey: try VectorManifest.signingKey("primary"))
        let presentations = VectorManifest.shared.vectors.filter { $0.expected.verdict == "valid" && $0.token.contains("PEEZP1:") }
        #expect(presentations.count >= 3)
        for vector in presentations {
            let card = try issuer.issue(
                CardClaims(
                    subject: vector.expected.sub!,
                    expiresAt: vector.expected.exp!,
                    issuedAt: vector.expected.iat!,
                    tokenID: TokenID(hex: vector.expected.cti!)!,
                    name: vector.expected.name,
                    deviceKey: publicKey
                )
            )
            let maker = try PresentationMaker(cardToken: card, deviceKey: device, publicKey: publicKey)
            let trimmed = vector.token.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(try maker.present(at: vector.expected.presented_at!) == trimmed, "\(vector.id)")
        }
    }

    @Test("a card is presented only with the device key it is bound to")
    func presentationMakerRefusesAnotherDevicesCard() throws {
        let device = try VectorManifest.signingKey("device")
        let other = try VectorManifest.signingKey("device-other")
        let issuer = CardIssuer(signingKey: try VectorManifest.signingKey("primary"))
        let boundToOther = try issuer.issue(
            CardClaims(
                subject: "PEEZ-20251103-00002",
                expiresAt: 2_000,
                issuedAt: 1_000,
                deviceKey: try DeviceKey(rawRepresentation: other.publicKey.rawRepresentation)
            )
        )
        let unbound = try issuer.issue(CardClaims(subject: "PEEZ-20251103-00002", expiresAt: 2_000, issuedAt: 1_000))
        let publicKey = try DeviceKey(rawRepresentation: device.publicKey.rawRepresentation)
        #expect(throws: CardTokenError(.invalidClaims, "")) {
            try PresentationMaker(cardToken: boundToOther, deviceKey: device, publicKey: publicKey)
        }
        #expect(throws: CardTokenError(.invalidClaims, "")) { try PresentationMaker(cardToken: unbound, deviceKey: device, publicKey: publicKey) }
    }
}
