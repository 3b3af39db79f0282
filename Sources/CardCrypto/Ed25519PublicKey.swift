import CPeezOpenSSL
public import CardToken

/// An Ed25519 public key held as an OpenSSL `EVP_PKEY`, parsed once and reused for every verification.
///
/// The key is immutable after creation and OpenSSL 3 allows one `EVP_PKEY` to be used from many threads
/// at once (each operation gets its own `EVP_MD_CTX`), so instances are `Sendable`. The key is freed
/// when the last reference goes.
public final class Ed25519PublicKey: CardVerificationKey, @unchecked Sendable {
    /// The length of a raw Ed25519 public key.
    public static let rawByteCount = 32

    let pkey: OpaquePointer
    /// The raw 32-byte public key.
    public let rawRepresentation: [UInt8]
    /// The kid: the first 8 bytes of SHA-256 over ``rawRepresentation``.
    public let keyID: KeyID

    /// Takes ownership of `pkey`.
    init(taking pkey: OpaquePointer) throws(CardCryptoError) {
        self.pkey = pkey
        var raw = [UInt8](repeating: 0, count: Self.rawByteCount)
        var length = raw.count
        guard EVP_PKEY_get_raw_public_key(pkey, &raw, &length) == 1, length == Self.rawByteCount else {
            EVP_PKEY_free(pkey)
            throw OpenSSLErrorQueue.failure("reading the raw public key")
        }
        self.rawRepresentation = raw
        self.keyID = Self.keyID(forRawKey: raw)
    }

    /// Parses a SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`).
    public convenience init(pem: [UInt8]) throws(CardCryptoError) {
        try self.init(taking: try PEMCoding.readKey(pem, kind: .publicKey))
    }

    /// Parses a SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`).
    public convenience init(pem: String) throws(CardCryptoError) {
        try self.init(pem: Array(pem.utf8))
    }

    /// Wraps a raw 32-byte public key.
    public convenience init(rawRepresentation raw: [UInt8]) throws(CardCryptoError) {
        guard raw.count == Self.rawByteCount else {
            throw CardCryptoError(.invalidKey, "an Ed25519 public key is 32 bytes, not \(raw.count)")
        }
        guard let pkey = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, raw, raw.count) else {
            throw OpenSSLErrorQueue.failure("loading a raw Ed25519 public key", code: .invalidKey)
        }
        try self.init(taking: pkey)
    }

    deinit { EVP_PKEY_free(pkey) }

    /// The key as SubjectPublicKeyInfo PEM.
    public func pemRepresentation() throws(CardCryptoError) -> String {
        try PEMCoding.write(pkey, kind: .publicKey)
    }

    /// Whether `signature` is this key's Ed25519 signature of `message` (one-shot EVP_DigestVerify).
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard signature.count == 64, let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, nil, nil, pkey) == 1 else {
            ERR_clear_error()
            return false
        }
        let result = EVP_DigestVerify(context, signature, signature.count, message, message.count)
        if result != 1 { ERR_clear_error() }
        return result == 1
    }

    /// A key from the raw 32 bytes of another (a card's device key), or nil when OpenSSL refuses them.
    public func keyOfSameKind(rawRepresentation raw: [UInt8]) -> (any CardVerificationKey)? {
        try? Ed25519PublicKey(rawRepresentation: raw)
    }

    /// The spec's kid for a raw public key: the first 8 bytes of its SHA-256.
    public static func keyID(forRawKey raw: [UInt8]) -> KeyID {
        KeyID(bytes: Array(SHA256.hash(raw).prefix(KeyID.byteCount)))!
    }
}
