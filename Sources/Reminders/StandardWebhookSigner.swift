import CardCrypto
import Foundation

/// Signs deliveries as the Standard Webhooks specification says: `webhook-signature` is `v1,` and the
/// base64 HMAC-SHA256 of `id.timestamp.body` under each secret (several during a secret's rotation, space
/// separated). Secrets are `whsec_` and base64 of at least 24 random bytes.
public struct StandardWebhookSigner: Sendable {
    private let keys: [[UInt8]]

    /// Secrets as `whsec_…`, whitespace or comma separated (the form the environment variable holds).
    public init(secrets text: String) throws {
        let secrets = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\n" || $0 == "\t" }).map(String.init)
        guard !secrets.isEmpty else { throw ReminderSinkError("no webhook secret: give at least one whsec_… secret") }
        keys = try secrets.map { secret in
            // The key is base64, padded or not.
            var encoded = String(secret.dropFirst(6))
            encoded += String(repeating: "=", count: (4 - encoded.count % 4) % 4)
            guard secret.hasPrefix("whsec_"), let key = Data(base64Encoded: encoded), key.count >= 24, key.count <= 64 else {
                throw ReminderSinkError("a webhook secret must be whsec_ followed by base64 of 24 to 64 bytes (peez remind new-secret makes one)")
            }
            return Array(key)
        }
    }

    /// The `webhook-signature` header value for a message.
    public func signature(id: String, timestamp: Int64, body: [UInt8]) -> String {
        let content = Array("\(id).\(timestamp).".utf8) + body
        return keys.map { "v1," + Data(HMACSHA256.authenticationCode(key: $0, message: content)).base64EncodedString() }.joined(separator: " ")
    }

    /// A new secret: `whsec_` and base64 of 32 random bytes.
    public static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return "whsec_" + Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64EncodedString()
    }
}
