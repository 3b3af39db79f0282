public import CardCrypto
public import CardToken
import Foundation

/// The service's keys: the one it signs with now and every public key it publishes, so cards signed by a
/// retired key keep verifying after a rotation.
public struct KeyRing: Sendable {
    /// The key new cards are signed with.
    public let signingKey: Ed25519PrivateKey
    /// Every published public key, the signing key's first.
    public let publishedKeys: [Ed25519PublicKey]

    public init(signingKey: Ed25519PrivateKey, publishedKeys: [Ed25519PublicKey]) {
        self.signingKey = signingKey
        self.publishedKeys = [signingKey.publicKey] + publishedKeys.filter { $0.rawRepresentation != signingKey.publicKey.rawRepresentation }
    }

    /// The keys the service's own verifier trusts: exactly the published ones.
    public var trustedKeys: TrustedKeySet { TrustedKeySet(publishedKeys) }

    /// The key set document served at `GET /v1/keys`.
    var document: KeySetDocument {
        KeySetDocument(keys: publishedKeys.map { key in
            KeySetDocument.Key(
                kid: key.keyID.hex,
                x: Data(key.rawRepresentation).base64EncodedString()
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: ""),
                pem: (try? key.pemRepresentation()) ?? "",
                status: key.keyID == signingKey.keyID ? "current" : "retired")
        })
    }
}

/// `GET /v1/keys`: the public keys a verifier should trust. `current` signs new cards; `retired` keys signed
/// cards that are still in members' phones and stay trusted until those cards have expired.
struct KeySetDocument: Codable, Sendable {
    struct Key: Codable, Sendable {
        var kid: String
        var alg = "EdDSA"
        var crv = "Ed25519"
        /// The raw public key, base64url without padding (as in a JWK).
        var x: String
        /// The same key as SubjectPublicKeyInfo PEM.
        var pem: String
        var status: String
    }
    var keys: [Key]
}
