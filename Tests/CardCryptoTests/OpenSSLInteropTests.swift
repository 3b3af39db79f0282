import CardCrypto
import CardToken
import Foundation
import PeezBasics
import TestSupport
import Testing

/// Keys and signatures move freely between this project and OpenSSL's own command line.
@Suite("Interop with the openssl command line")
struct OpenSSLInteropTests {
    @Test func keyFromOpenSSLGenpkeySignsCardsThatVerify() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let keyPath = folder.file("key.pem")
        #expect(try ProcessRunner.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", keyPath]).status == 0)
        chmod(keyPath, 0o600)
        #expect(try ProcessRunner.run(["openssl", "pkey", "-in", keyPath, "-pubout", "-out", folder.file("key.pub.pem")]).status == 0)

        let key = try KeyFiles.loadPrivateKey(path: keyPath)
        let publicKey = try KeyFiles.loadPublicKey(path: folder.file("key.pub.pem"))
        #expect(publicKey.keyID == key.keyID)

        let claims = CardClaims(subject: "PEEZ-20251103-00002", expiresAt: 2_000_000_000, issuedAt: 1_700_000_000)
        let token = try CardIssuer(signingKey: key).issue(claims)
        let result = CardVerifier(trustedKeys: TrustedKeySet([publicKey])).verify(token, now: 1_800_000_000)
        #expect(result.verdict == .valid)
        #expect(result.claims == claims)
    }

    @Test func signatureOverSigStructureVerifiesWithOpenSSLPkeyutl() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let key = try Ed25519PrivateKey.generate()
        let written = try KeyFiles.writeKeyPair(key, directory: folder.path)

        let envelope = try CardIssuer(signingKey: key).sign(
            CardClaims(subject: "PEEZ-20251103-00002", expiresAt: 2_000_000_000, issuedAt: 1_700_000_000)
        )
        try Data(envelope.signatureInput).write(to: URL(fileURLWithPath: folder.file("sig-structure.bin")))
        try Data(envelope.signature).write(to: URL(fileURLWithPath: folder.file("signature.bin")))

        let verify = try ProcessRunner.run([
            "openssl", "pkeyutl", "-verify", "-rawin", "-pubin", "-inkey", written.publicKeyPath,
            "-in", folder.file("sig-structure.bin"), "-sigfile", folder.file("signature.bin"),
        ])
        #expect(verify.status == 0, "\(verify.standardOutput) \(verify.standardError)")
        #expect(verify.standardOutput.contains("Signature Verified Successfully"))

        // The same command must refuse a signature over other bytes, or the check above proves nothing.
        try Data(envelope.signatureInput + [0]).write(to: URL(fileURLWithPath: folder.file("other.bin")))
        let refuse = try ProcessRunner.run([
            "openssl", "pkeyutl", "-verify", "-rawin", "-pubin", "-inkey", written.publicKeyPath,
            "-in", folder.file("other.bin"), "-sigfile", folder.file("signature.bin"),
        ])
        #expect(refuse.status != 0)
    }

    @Test func signatureMadeByOpenSSLVerifiesHere() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let key = try Ed25519PrivateKey.generate()
        let written = try KeyFiles.writeKeyPair(key, directory: folder.path)
        let message = Array("Signature1 over anything".utf8)
        try Data(message).write(to: URL(fileURLWithPath: folder.file("message.bin")))
        let sign = try ProcessRunner.run([
            "openssl", "pkeyutl", "-sign", "-rawin", "-inkey", written.privateKeyPath,
            "-in", folder.file("message.bin"), "-out", folder.file("signature.bin"),
        ])
        #expect(sign.status == 0, "\(sign.standardError)")
        let signature = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder.file("signature.bin"))))
        #expect(key.publicKey.isValidSignature(signature, for: message))
        #expect(try key.sign(message) == signature, "Ed25519 is deterministic: both sides make the same signature")
    }

    @Test func publicPEMMatchesOpenSSLPubout() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let written = try KeyFiles.writeKeyPair(try Ed25519PrivateKey.generate(), directory: folder.path)
        let pubout = try ProcessRunner.run(["openssl", "pkey", "-in", written.privateKeyPath, "-pubout"])
        #expect(pubout.standardOutput == (try String(contentsOfFile: written.publicKeyPath, encoding: .utf8)))
    }
}

/// Webhook signatures (Chargily's: the hex HMAC-SHA256 of the raw body), checked against openssl's own.
@Suite("HMAC-SHA256 codes in hex")
struct HMACHexTests {
    static let key = Array("test_sk_secret".utf8)
    static let body = Array(#"{"type":"checkout.paid","data":{"id":"01h"}}"#.utf8)

    @Test func theCodeOpenSSLComputesIsAcceptedInEitherCase() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try Data(Self.body).write(to: URL(fileURLWithPath: folder.file("body")))
        let made = try ProcessRunner.run(["openssl", "dgst", "-sha256", "-hmac", "test_sk_secret", "-r", folder.file("body")])
        let hex = try #require(made.standardOutput.split(separator: " ").first.map(String.init))
        #expect(hex.count == 64)
        #expect(HMACSHA256.isCode(hex: hex, of: Self.body, key: Self.key))
        #expect(HMACSHA256.isCode(hex: hex.uppercased(), of: Self.body, key: Self.key))
    }

    @Test func anyOtherCodeIsRefused() {
        let good = Hex.encode(HMACSHA256.authenticationCode(key: Self.key, message: Self.body))
        #expect(!HMACSHA256.isCode(hex: good, of: Self.body + [0x20], key: Self.key))
        #expect(!HMACSHA256.isCode(hex: good, of: Self.body, key: Array("test_sk_other".utf8)))
        #expect(!HMACSHA256.isCode(hex: String(good.dropLast()), of: Self.body, key: Self.key))
        #expect(!HMACSHA256.isCode(hex: good + "0", of: Self.body, key: Self.key))
        #expect(!HMACSHA256.isCode(hex: String(good.dropLast()) + "g", of: Self.body, key: Self.key))
        #expect(!HMACSHA256.isCode(hex: "", of: Self.body, key: Self.key))
    }
}
