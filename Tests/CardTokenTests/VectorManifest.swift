import CardCrypto
import CardToken
import Foundation

/// The shared test vectors in `Fixtures/vectors/card-token-vectors.json`, as data.
struct VectorManifest: Decodable {
    struct Vector: Decodable, CustomTestStringConvertibleShim {
        struct Revocations: Decodable {
            var token_ids: [String]
            var members: [String: Int64]
        }
        struct Expected: Decodable {
            var verdict: String
            var sub: String?
            var exp: Int64?
            var iat: Int64?
            var cti: String?
            var kid: String?
            var name: String?
            /// The spec's step that refuses the token (every refusal names one).
            var step: Int?
            /// A presentation's time, once its device signature verified.
            var presented_at: Int64?
        }
        var id: String
        var description: String
        var token: String
        var trusted_keys: [String]
        var now: Int64
        var leeway: Int64
        var revocations: Revocations
        var key_windows: [String: KeyValidityWindow]?
        var expected: Expected

        var testDescription: String { id }
    }

    struct Window: Decodable {
        var skew: Int64
        var display_period: Int64
    }

    var public_keys: [String: String]
    var presentation_window: Window
    var vectors: [Vector]

    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static let shared: VectorManifest = {
        let url = fixtures.appendingPathComponent("vectors/card-token-vectors.json")
        return try! JSONDecoder().decode(VectorManifest.self, from: Data(contentsOf: url))
    }()

    /// The verifier a vector asks for: its trusted keys, leeway and revocation list.
    func verifier(for vector: Vector) throws -> CardVerifier {
        var keys = TrustedKeySet()
        for name in vector.trusted_keys {
            keys.insert(try Ed25519PublicKey(pem: public_keys[name]!), window: vector.key_windows?[name] ?? .unbounded)
        }
        let revocations = RevocationList(
            revokedTokenIDs: Set(vector.revocations.token_ids.map { TokenID(hex: $0)! }),
            revokedBefore: vector.revocations.members
        )
        return CardVerifier(
            trustedKeys: keys,
            revocations: revocations,
            leeway: vector.leeway,
            presentationWindow: PresentationWindow(skew: presentation_window.skew, displayPeriod: presentation_window.display_period)
        )
    }

    /// A signing key of the vectors, read without the file-mode check (git does not keep 0600).
    static func signingKey(_ name: String) throws -> Ed25519PrivateKey {
        try Ed25519PrivateKey(pem: Array(Data(contentsOf: fixtures.appendingPathComponent("keys/vectors-\(name).pem"))))
    }
}

/// Lets a vector name itself in test output.
protocol CustomTestStringConvertibleShim {
    var testDescription: String { get }
}
