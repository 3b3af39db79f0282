import CPeezOpenSSL
public import CardToken

/// An Ed25519 private key held as an OpenSSL `EVP_PKEY`, parsed once and reused for every signature.
///
/// Immutable after creation and safe to share between tasks: each signature gets its own `EVP_MD_CTX`.
/// The key is freed when the last reference goes. Its description never shows key material.
public final class Ed25519PrivateKey: CardSigningKey, CustomStringConvertible, @unchecked Sendable {
    let pkey: OpaquePointer
    /// The matching public key.
    public let publicKey: Ed25519PublicKey

    /// The kid of the public half.
    public var keyID: KeyID { publicKey.keyID }

    /// Takes ownership of `pkey`.
    private init(taking pkey: OpaquePointer) throws(CardCryptoError) {
        self.pkey = pkey
        var raw = [UInt8](repeating: 0, count: Ed25519PublicKey.rawByteCount)
        var length = raw.count
        guard EVP_PKEY_get_raw_public_key(pkey, &raw, &length) == 1 else {
            EVP_PKEY_free(pkey)
            throw OpenSSLErrorQueue.failure("deriving the public key")
        }
        do {
            self.publicKey = try Ed25519PublicKey(rawRepresentation: raw)
        } catch {
            EVP_PKEY_free(pkey)
            throw error
        }
    }

    /// A fresh key from OpenSSL's generator.
    public static func generate() throws(CardCryptoError) -> Ed25519PrivateKey {
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nil) else {
            throw OpenSSLErrorQueue.failure("EVP_PKEY_CTX_new_id")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var pkey: OpaquePointer? = nil
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_keygen(context, &pkey) == 1, let pkey else {
            throw OpenSSLErrorQueue.failure("generating an Ed25519 key")
        }
        return try Ed25519PrivateKey(taking: pkey)
    }

    /// Parses an unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), as `openssl genpkey` writes it.
    public convenience init(pem: [UInt8]) throws(CardCryptoError) {
        try self.init(taking: try PEMCoding.readKey(pem, kind: .privateKey))
    }

    /// Parses an unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`).
    public convenience init(pem: String) throws(CardCryptoError) {
        try self.init(pem: Array(pem.utf8))
    }

    deinit { EVP_PKEY_free(pkey) }

    /// The key as unencrypted PKCS#8 PEM. Handle with care: this is the secret.
    public func pemRepresentation() throws(CardCryptoError) -> String {
        try PEMCoding.write(pkey, kind: .privateKey)
    }

    /// The 64-byte Ed25519 signature of `message` (one-shot EVP_DigestSign, no digest).
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw OpenSSLErrorQueue.failure("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, nil, nil, pkey) == 1 else {
            throw OpenSSLErrorQueue.failure("EVP_DigestSignInit")
        }
        var signature = [UInt8](repeating: 0, count: 64)
        var length = signature.count
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1, length == 64 else {
            throw OpenSSLErrorQueue.failure("EVP_DigestSign")
        }
        return signature
    }

    public var description: String { "Ed25519PrivateKey(kid: \(keyID))" }
}
