import CPeezOpenSSL
import CardCrypto
import PeezBasics

/// What signs Apple Wallet passes: the pass type certificate, its private key, and Apple's WWDR intermediate
/// that issued it, checked to belong together when loaded (the most common reason a pass does not open is a
/// certificate for another pass type or team).
public final class PassSigningIdentity: @unchecked Sendable {
    public let certificate: X509Certificate
    public let intermediate: X509Certificate
    private let key: OpaquePointer
    /// The pass type id (`pass.dz.peez.card`), the certificate's UID.
    public let passTypeIdentifier: String
    /// The Apple team id, the certificate's OU.
    public let teamIdentifier: String

    /// Loads and checks an identity at `now`: each part must parse, the key must be the certificate's, the
    /// certificate's UID must be `passTypeIdentifier` and its OU `teamIdentifier`, the WWDR intermediate must
    /// have issued it, and both must be valid now. Each refusal is one sentence naming the setting to fix.
    public init(
        certificatePEM: [UInt8],
        keyPEM: [UInt8],
        intermediatePEM: [UInt8],
        passTypeIdentifier: String,
        teamIdentifier: String,
        now: Int64
    )
        throws(WalletError)
    {
        let certificate = try X509Certificate(pem: certificatePEM, what: "PEEZ_WALLET_CERTIFICATE")
        let intermediate = try X509Certificate(pem: intermediatePEM, what: "PEEZ_WALLET_WWDR")
        let bio = copyingBIO(keyPEM)
        defer { BIO_free(bio) }
        guard let key = PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil) else {
            _ = OpenSSLErrorQueue.drain()
            throw WalletError(.invalidConfiguration, "PEEZ_WALLET_KEY is not an unencrypted PEM private key")
        }
        self.key = key
        self.certificate = certificate
        self.intermediate = intermediate
        self.passTypeIdentifier = passTypeIdentifier
        self.teamIdentifier = teamIdentifier

        guard X509_check_private_key(certificate.pointer, key) == 1 else {
            _ = OpenSSLErrorQueue.drain()
            throw WalletError(.inconsistentIdentity, "PEEZ_WALLET_KEY is not the private key of PEEZ_WALLET_CERTIFICATE (\(certificate.subjectLine))")
        }
        guard let uid = certificate.userID else {
            throw WalletError(
                .inconsistentIdentity,
                "PEEZ_WALLET_CERTIFICATE has no UID in its subject (\(certificate.subjectLine)): it is not a Pass Type ID certificate"
            )
        }
        guard uid == passTypeIdentifier else {
            throw WalletError(
                .inconsistentIdentity,
                "PEEZ_WALLET_CERTIFICATE is for pass type \(uid) (its UID), not PEEZ_WALLET_PASS_TYPE_ID \(passTypeIdentifier): set the one the certificate was made for"
            )
        }
        guard certificate.organizationalUnit == teamIdentifier else {
            throw WalletError(
                .inconsistentIdentity,
                "PEEZ_WALLET_CERTIFICATE belongs to team \(certificate.organizationalUnit ?? "(none)") (its OU), not PEEZ_WALLET_TEAM_ID \(teamIdentifier)"
            )
        }
        guard intermediate.issued(certificate) else {
            throw WalletError(
                .inconsistentIdentity,
                "PEEZ_WALLET_WWDR (\(intermediate.subjectLine)) did not issue PEEZ_WALLET_CERTIFICATE, whose issuer is \(certificate.issuerLine): use that WWDR intermediate"
            )
        }
        for (setting, part) in [("PEEZ_WALLET_CERTIFICATE", certificate), ("PEEZ_WALLET_WWDR", intermediate)] {
            guard part.notBefore <= now, now <= part.notAfter else {
                throw WalletError(
                    .inconsistentIdentity,
                    "\(setting) is valid only from \(AlgiersCalendar.iso8601(part.notBefore)) to \(AlgiersCalendar.iso8601(part.notAfter)): renew it"
                )
            }
        }
    }

    deinit { EVP_PKEY_free(key) }

    /// The detached CMS (PKCS #7) signature of `manifest` in DER: signed by the pass type certificate, with it
    /// and the WWDR intermediate included and a signing time, as Wallet requires.
    public func sign(_ manifest: [UInt8]) throws(WalletError) -> [UInt8] {
        let data = copyingBIO(manifest)
        defer { BIO_free(data) }
        guard let chain = peez_sk_X509_new_null() else { throw Self.failure("allocating the certificate chain") }
        defer { peez_sk_X509_free(chain) }
        _ = peez_sk_X509_push(chain, intermediate.pointer)
        guard let cms = CMS_sign(certificate.pointer, key, chain, data, UInt32(CMS_DETACHED | CMS_BINARY)) else {
            throw Self.failure("signing the manifest")
        }
        defer { CMS_ContentInfo_free(cms) }
        guard let out = BIO_new(BIO_s_mem()) else { throw Self.failure("allocating the signature") }
        defer { BIO_free(out) }
        guard i2d_CMS_bio(out, cms) == 1 else { throw Self.failure("encoding the signature") }
        var bytes: UnsafeMutablePointer<CChar>?
        let length = peez_BIO_get_mem_data(out, &bytes)
        guard length > 0, let bytes else { throw Self.failure("reading the signature") }
        return Array(UnsafeRawBufferPointer(start: bytes, count: length))
    }

    private static func failure(_ what: String) -> WalletError {
        WalletError(.signingFailed, "\(what): \(OpenSSLErrorQueue.drain())")
    }

    /// The certificate, the WWDR intermediate and the key as PEM: the TLS client identity APNs takes as the
    /// provider's credential when pushing with the pass type certificate instead of an auth key.
    public func tlsClientIdentity() -> (certificateChainPEM: [UInt8], privateKeyPEM: [UInt8]) {
        (certificate.pemEncoded + intermediate.pemEncoded, Self.pem { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) })
    }

    /// What `write` puts into a memory BIO.
    static func pem(_ write: (OpaquePointer) -> Int32) -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else { return [] }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { return [] }
        var data: UnsafeMutablePointer<CChar>?
        let length = peez_BIO_get_mem_data(bio, &data)
        guard length > 0, let data else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: length))
    }
}
