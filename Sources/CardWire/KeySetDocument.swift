public import CardCrypto
import CardToken
import Foundation

/// The public keys a verifier trusts, as the card service serves them at `GET /v1/keys` and as
/// `peez verify --keys keys.json` reads them: one type for the server, the command line and the tests.
///
/// ```json
/// {"keys": [{"kid": "…16 hex…", "alg": "EdDSA", "crv": "Ed25519", "x": "…base64url…",
///            "pem": "-----BEGIN PUBLIC KEY-----…", "status": "current"}]}
/// ```
public struct KeySetDocument: Codable, Sendable, Hashable {
    public struct Key: Codable, Sendable, Hashable {
        /// First 8 bytes of SHA-256 of the raw key, hex: the kid cards name.
        public var kid: String
        /// `EdDSA`. The service always writes `alg`, `crv`, `x` and `status`; a hand-made document may leave
        /// them out, and each one given must agree with the key.
        public var alg: String?
        /// `Ed25519`.
        public var crv: String?
        /// The raw public key, base64url without padding (as in a JWK).
        public var x: String?
        /// The same key as SubjectPublicKeyInfo PEM.
        public var pem: String
        /// `current` signs new cards; `retired` keys signed cards still in members' phones and stay trusted.
        public var status: Status?

        public enum Status: String, Codable, Sendable {
            case current, retired
        }

        public init(_ key: Ed25519PublicKey, status: Status) throws(CardCryptoError) {
            kid = key.keyID.hex
            alg = "EdDSA"
            crv = "Ed25519"
            x = Data(key.rawRepresentation).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            pem = try key.pemRepresentation()
            self.status = status
        }
    }

    public var keys: [Key]

    public init(keys: [Key]) {
        self.keys = keys
    }

    /// The document for a service that signs with `current` and still publishes `retired`.
    public init(current: Ed25519PublicKey, retired: [Ed25519PublicKey]) throws(CardCryptoError) {
        keys = [try Key(current, status: .current)] + (try retired.map { key throws(CardCryptoError) in try Key(key, status: .retired) })
    }

    /// The largest key set document read (a few keys take a few kilobytes).
    public static let maxSize = 1024 * 1024

    /// Decodes a document, refusing one over ``maxSize`` bytes.
    public static func decode(_ bytes: some Collection<UInt8>) throws(CardWireError) -> KeySetDocument {
        try BoundedJSON.decode(KeySetDocument.self, from: bytes, limit: maxSize, name: "a key set document",
                               shape: #"{"keys": [{"kid", "pem", "status", …}]}"#)
    }

    /// Every key, each checked: its PEM is an Ed25519 public key whose kid and raw form are the ones listed.
    public func publicKeys() throws(CardWireError) -> [Ed25519PublicKey] {
        var result: [Ed25519PublicKey] = []
        for (index, entry) in keys.enumerated() {
            let key: Ed25519PublicKey
            do {
                key = try Ed25519PublicKey(pem: entry.pem)
            } catch {
                throw CardWireError(.invalidKey, "key \(index): \(error.reason)")
            }
            guard entry.kid == key.keyID.hex else {
                throw CardWireError(.invalidKey, "key \(index) claims kid \(entry.kid) but its key's kid is \(key.keyID.hex)")
            }
            let expected = try? Key(key, status: .current)
            guard entry.x == nil || entry.x == expected?.x else {
                throw CardWireError(.invalidKey, "key \(index): its \"x\" is not the key its PEM holds")
            }
            guard (entry.alg ?? "EdDSA") == "EdDSA", (entry.crv ?? "Ed25519") == "Ed25519" else {
                throw CardWireError(.invalidKey, "key \(index): only alg EdDSA on crv Ed25519 is supported")
            }
            result.append(key)
        }
        return result
    }
}
