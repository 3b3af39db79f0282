import CPeezOpenSSL
import CardCrypto
import Foundation
import PeezBasics

/// The key Apple's push service authenticates a provider with (a `.p8` file: PKCS #8 EC P-256), and the
/// ES256 JSON Web Tokens made from it: header `{"alg": "ES256", "kid": key id}`, claims `{"iss": team id,
/// "iat": issued at}`, signature the raw 64-byte r‖s (RFC 7518 §3.4).
public final class APNsAuthenticationKey: @unchecked Sendable {
    private let key: OpaquePointer
    /// The key's id in Apple's developer account (10 characters).
    public let keyID: String
    /// The team the key belongs to.
    public let teamID: String

    public init(pem: [UInt8], keyID: String, teamID: String) throws(WalletError) {
        let bio = copyingBIO(pem)
        defer { BIO_free(bio) }
        guard let key = PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil) else {
            _ = OpenSSLErrorQueue.drain()
            throw WalletError(.invalidConfiguration, "PEEZ_APNS_KEY is not a PEM private key (Apple's .p8 file)")
        }
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC, EVP_PKEY_get_bits(key) == 256 else {
            EVP_PKEY_free(key)
            throw WalletError(.invalidConfiguration, "PEEZ_APNS_KEY is not an EC P-256 key: APNs tokens are ES256, made with Apple's .p8 key")
        }
        guard !keyID.isEmpty, keyID.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x22 }) else {
            EVP_PKEY_free(key)
            throw WalletError(.invalidConfiguration, "PEEZ_APNS_KEY_ID must be the key's id from Apple's developer account")
        }
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
    }

    deinit { EVP_PKEY_free(key) }

    /// A provider token issued at `issuedAt` (seconds since the epoch).
    public func token(issuedAt: Int64) throws(WalletError) -> String {
        let header = Base64URL.encode(Array("{\"alg\":\"ES256\",\"kid\":\(JSONText.string(keyID))}".utf8))
        let claims = Base64URL.encode(Array("{\"iss\":\(JSONText.string(teamID)),\"iat\":\(issuedAt)}".utf8))
        let input = Array("\(header).\(claims)".utf8)
        return "\(header).\(claims).\(Base64URL.encode(try sign(input)))"
    }

    /// The ES256 signature of `message` as r‖s, 32 bytes each.
    private func sign(_ message: [UInt8]) throws(WalletError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw WalletError(.signingFailed, "allocating a digest context") }
        defer { EVP_MD_CTX_free(context) }
        var length = 0
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1, EVP_DigestSign(context, nil, &length, message, message.count) == 1 else {
            throw WalletError(.signingFailed, "ES256 signing: \(OpenSSLErrorQueue.drain())")
        }
        var der = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &der, &length, message, message.count) == 1 else {
            throw WalletError(.signingFailed, "ES256 signing: \(OpenSSLErrorQueue.drain())")
        }
        return try der.withUnsafeBufferPointer { buffer throws(WalletError) -> [UInt8] in
            var cursor = buffer.baseAddress
            guard let signature = d2i_ECDSA_SIG(nil, &cursor, length) else {
                throw WalletError(.signingFailed, "reading the ECDSA signature: \(OpenSSLErrorQueue.drain())")
            }
            defer { ECDSA_SIG_free(signature) }
            var r: OpaquePointer?
            var s: OpaquePointer?
            ECDSA_SIG_get0(signature, &r, &s)
            var out = [UInt8](repeating: 0, count: 64)
            guard BN_bn2binpad(r, &out, 32) == 32, out.withUnsafeMutableBufferPointer({ BN_bn2binpad(s, $0.baseAddress! + 32, 32) }) == 32 else {
                throw WalletError(.signingFailed, "writing the ECDSA signature")
            }
            return out
        }
    }
}
