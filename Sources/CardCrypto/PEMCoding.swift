import CPeezOpenSSL

/// Reading and writing EVP_PKEY objects as PEM through memory BIOs.
enum PEMCoding {
    enum Kind {
        case privateKey
        case publicKey
    }

    /// Parses one PEM key of `kind`, insisting that it is Ed25519. The caller owns the returned key.
    static func readKey(_ pem: [UInt8], kind: Kind) throws(CardCryptoError) -> OpaquePointer {
        let key: OpaquePointer? = pem.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            // The password callback supplies none, so an encrypted key fails instead of prompting a terminal.
            switch kind {
            case .privateKey: return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
            case .publicKey: return PEM_read_bio_PUBKEY(bio, nil, { _, _, _, _ in 0 }, nil)
            }
        }
        guard let key else {
            let text = String(decoding: pem.prefix(4096), as: UTF8.self)
            let detail = OpenSSLErrorQueue.drain()
            if kind == .privateKey && text.contains("ENCRYPTED PRIVATE KEY") {
                throw CardCryptoError(
                    .encryptedKey,
                    "the private key is password-protected; give an unencrypted PKCS#8 key (openssl pkey -in KEY -out PLAIN)"
                )
            }
            if kind == .publicKey && text.contains("PRIVATE KEY-----") {
                throw CardCryptoError(
                    .privateKeyInKeySet,
                    "this is a private key where a public key is expected; publish only its public half (peez keys generate writes one, or openssl pkey -pubout)"
                )
            }
            let expected = kind == .privateKey ? "-----BEGIN PRIVATE KEY-----" : "-----BEGIN PUBLIC KEY-----"
            throw CardCryptoError(.invalidKey, "not a PEM key OpenSSL can read (expected \(expected)): \(detail)")
        }
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_ED25519 else {
            EVP_PKEY_free(key)
            throw CardCryptoError(.unsupportedKeyType, "the key is not Ed25519; make one with: openssl genpkey -algorithm ed25519")
        }
        return key
    }

    /// Writes `key` as PEM: PKCS#8 for the private half, SubjectPublicKeyInfo for the public half.
    static func write(_ key: OpaquePointer, kind: Kind) throws(CardCryptoError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw OpenSSLErrorQueue.failure("BIO_new") }
        defer { BIO_free(bio) }
        let ok: Int32
        switch kind {
        case .privateKey: ok = PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil)
        case .publicKey: ok = PEM_write_bio_PUBKEY(bio, key)
        }
        guard ok == 1 else { throw OpenSSLErrorQueue.failure("writing a PEM key") }
        var data: UnsafeMutablePointer<CChar>? = nil
        let length = peez_BIO_get_mem_data(bio, &data)
        guard let data, length > 0 else { throw OpenSSLErrorQueue.failure("reading the PEM buffer") }
        return data.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }
}
