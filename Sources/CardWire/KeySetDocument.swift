public import CardCrypto
public import CardToken
import Foundation

/// The public keys a verifier trusts, as the card service serves them at `GET /v1/keys` and as
/// `peez verify --keys keys.json` reads them: one type for the server, the command line and the tests.
///
/// ```json
/// {"keys": [{"kid": "…16 hex…", "alg": "EdDSA", "crv": "Ed25519", "x": "…base64url…",
///            "pem": "-----BEGIN PUBLIC KEY-----…", "status": "current",
///            "published_at": 1795423432, "retired_at": null}]}
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
        /// When the key was published (seconds since the epoch); absent or null when not recorded.
        public var publishedAt: Int64?
        /// When the key stopped signing new cards; null while it may still sign. Cards it signed later are refused.
        public var retiredAt: Int64?

        public enum Status: String, Codable, Sendable {
            case current, retired
        }

        enum CodingKeys: String, CodingKey {
            case kid, alg, crv, x, pem, status
            case publishedAt = "published_at"
            case retiredAt = "retired_at"
        }

        /// The key's validity window.
        public var window: KeyValidityWindow {
            KeyValidityWindow(publishedAt: publishedAt, retiredAt: retiredAt)
        }

        /// Writes every field, the window's nulls included, so a reader sees that no bound was recorded.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(kid, forKey: .kid)
            try container.encodeIfPresent(alg, forKey: .alg)
            try container.encodeIfPresent(crv, forKey: .crv)
            try container.encodeIfPresent(x, forKey: .x)
            try container.encode(pem, forKey: .pem)
            try container.encodeIfPresent(status, forKey: .status)
            try container.encode(publishedAt, forKey: .publishedAt)
            try container.encode(retiredAt, forKey: .retiredAt)
        }

        public init(_ key: Ed25519PublicKey, status: Status, window: KeyValidityWindow = .unbounded) throws(CardCryptoError) {
            kid = key.keyID.hex
            alg = "EdDSA"
            crv = "Ed25519"
            x = Data(key.rawRepresentation).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            pem = try key.pemRepresentation()
            self.status = status
            publishedAt = window.publishedAt
            retiredAt = window.retiredAt
        }
    }

    public var keys: [Key]

    public init(keys: [Key]) {
        self.keys = keys
    }

    /// The document for a service that signs with `current` and still publishes `retired`, each key with its
    /// window from `windows` (unbounded when it has none).
    public init(current: Ed25519PublicKey, retired: [Ed25519PublicKey], windows: [KeyID: KeyValidityWindow] = [:]) throws(CardCryptoError) {
        keys =
            [try Key(current, status: .current, window: windows[current.keyID] ?? .unbounded)]
            + (try retired.map { key throws(CardCryptoError) in try Key(key, status: .retired, window: windows[key.keyID] ?? .unbounded) })
    }

    /// The largest key set document read (a few keys take a few kilobytes).
    public static let maxSize = 1024 * 1024

    /// Decodes a document, refusing one over ``maxSize`` bytes.
    public static func decode(_ bytes: some Collection<UInt8>) throws(CardWireError) -> KeySetDocument {
        try BoundedJSON.decode(
            KeySetDocument.self,
            from: bytes,
            limit: maxSize,
            name: "a key set document",
            shape: #"{"keys": [{"kid", "pem", "status", …}]}"#
        )
    }

    /// The keys as a verifier trusts them, each within its window.
    public func trustedKeys() throws(CardWireError) -> TrustedKeySet {
        var set = TrustedKeySet()
        for (key, entry) in zip(try publicKeys(), keys) { set.insert(key, window: entry.window) }
        return set
    }

    /// Every key, each checked: its PEM is an Ed25519 public key whose kid and raw form are the ones listed,
    /// and its window does not end before it begins.
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
            if let publishedAt = entry.publishedAt, let retiredAt = entry.retiredAt, retiredAt < publishedAt {
                throw CardWireError(.invalidKey, "key \(index): retired_at is earlier than published_at")
            }
            result.append(key)
        }
        return result
    }
}
