import CPeezOpenSSL
import CardCrypto
import Foundation

/// An X.509 certificate held as an OpenSSL `X509`, read from PEM or DER: the fields a pass's identity is judged by.
public final class X509Certificate: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Takes ownership of `pointer`.
    init(taking pointer: OpaquePointer) { self.pointer = pointer }

    /// The first certificate of a PEM text, or a DER certificate (the `.cer` file Apple's developer site hands
    /// out), or `invalidConfiguration` naming `what` and how to convert what it is.
    public convenience init(pem bytes: [UInt8], what: String) throws(WalletError) {
        let bio = copyingBIO(bytes)
        defer { BIO_free(bio) }
        if let certificate = PEM_read_bio_X509(bio, nil, nil, nil) {
            self.init(taking: certificate)
            return
        }
        _ = OpenSSLErrorQueue.drain()
        let der: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
        guard let der else {
            _ = OpenSSLErrorQueue.drain()
            throw WalletError(
                .invalidConfiguration,
                "\(what) is neither a PEM certificate (-----BEGIN CERTIFICATE-----) nor a DER one (Apple's .cer); a .p12 export converts with: openssl pkcs12 -in pass.p12 -clcerts -nokeys -out pass.pem"
            )
        }
        self.init(taking: der)
    }

    deinit { X509_free(pointer) }

    /// The certificate as PEM text.
    public var pemEncoded: [UInt8] { PassSigningIdentity.pem { PEM_write_bio_X509($0, pointer) } }

    /// A subject attribute's text (`NID_userId` is the UID Apple writes the pass type id into), nil if absent.
    func subject(_ nid: Int32) -> String? {
        guard let name = X509_get_subject_name(pointer) else { return nil }
        let index = X509_NAME_get_index_by_NID(name, nid, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index), let data = X509_NAME_ENTRY_get_data(entry) else { return nil }
        var utf8: UnsafeMutablePointer<UInt8>?
        let length = ASN1_STRING_to_UTF8(&utf8, data)
        guard length >= 0, let utf8 else { return nil }
        defer { peez_OPENSSL_free(utf8) }
        return String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self)
    }

    /// The subject's UID (0.9.2342.19200300.100.1.1): a pass type certificate's pass type id.
    public var userID: String? { subject(NID_userId) }
    /// The subject's organisational unit: a pass type certificate's team id.
    public var organizationalUnit: String? { subject(NID_organizationalUnitName) }
    /// The subject's common name.
    public var commonName: String? { subject(NID_commonName) }

    /// The subject as one line (`CN=…, OU=…`), for messages.
    public var subjectLine: String { Self.line(X509_get_subject_name(pointer)) }
    /// The issuer as one line, for messages.
    public var issuerLine: String { Self.line(X509_get_issuer_name(pointer)) }

    private static func line(_ name: OpaquePointer?) -> String {
        guard let name, let bio = BIO_new(BIO_s_mem()) else { return "?" }
        defer { BIO_free(bio) }
        X509_NAME_print_ex(bio, name, 0, peez_XN_FLAG_RFC2253())
        var data: UnsafeMutablePointer<CChar>?
        let length = peez_BIO_get_mem_data(bio, &data)
        guard length > 0, let data else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length).bindMemory(to: UInt8.self), as: UTF8.self)
    }

    /// The start and end of validity, seconds since the epoch.
    public var notBefore: Int64 { Self.seconds(X509_get0_notBefore(pointer)) }
    public var notAfter: Int64 { Self.seconds(X509_get0_notAfter(pointer)) }

    private static func seconds(_ time: UnsafePointer<ASN1_TIME>?) -> Int64 {
        var parts = tm()
        guard let time, ASN1_TIME_to_tm(time, &parts) == 1 else { return 0 }
        return Int64(timegm(&parts))
    }

    /// Whether this certificate may issue others (basic constraints CA).
    public var isCertificateAuthority: Bool { X509_check_ca(pointer) != 0 }

    /// Whether this certificate's key signed `subject` and its name is `subject`'s issuer.
    public func issued(_ subject: X509Certificate) -> Bool {
        guard X509_check_issued(pointer, subject.pointer) == X509_V_OK else { return false }
        guard let key = X509_get0_pubkey(pointer) else { return false }
        let verified = X509_verify(subject.pointer, key) == 1
        if !verified { _ = OpenSSLErrorQueue.drain() }
        return verified
    }
}

/// A memory BIO holding a copy of `bytes` (BIO_new_mem_buf would point into memory Swift may move or free
/// once the call that lent it returns). Free it with `BIO_free`.
func copyingBIO(_ bytes: [UInt8]) -> OpaquePointer? {
    guard let bio = BIO_new(BIO_s_mem()) else { return nil }
    guard bytes.isEmpty || BIO_write(bio, bytes, Int32(bytes.count)) == Int32(bytes.count) else {
        BIO_free(bio)
        return nil
    }
    return bio
}
