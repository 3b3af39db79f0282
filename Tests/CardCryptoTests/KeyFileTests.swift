import CardCrypto
import CardToken
import Foundation
import PeezBasics
import TestSupport
import Testing

@Suite("Key files and key sets")
struct KeyFileTests {
    @Test func generatedPrivateKeyIsWrittenWithMode0600() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let written = try KeyFiles.writeKeyPair(try Ed25519PrivateKey.generate(), directory: folder.file("new/nested"))
        let attributes = try FileManager.default.attributesOfItem(atPath: written.privateKeyPath)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try String(contentsOfFile: written.privateKeyPath, encoding: .utf8).hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(try String(contentsOfFile: written.publicKeyPath, encoding: .utf8).hasPrefix("-----BEGIN PUBLIC KEY-----"))
    }

    @Test func writingNeverOverwritesAKey() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        _ = try KeyFiles.writeKeyPair(try Ed25519PrivateKey.generate(), directory: folder.path)
        #expect(throws: CardCryptoError(.fileExists, "")) {
            try KeyFiles.writeKeyPair(try Ed25519PrivateKey.generate(), directory: folder.path)
        }
    }

    @Test func privateKeyReadableByOthersIsRefusedWithAFix() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let written = try KeyFiles.writeKeyPair(try Ed25519PrivateKey.generate(), directory: folder.path)
        for mode: mode_t in [0o640, 0o604, 0o644] {
            chmod(written.privateKeyPath, mode)
            let error = #expect(throws: CardCryptoError.self) { try KeyFiles.loadPrivateKey(path: written.privateKeyPath) }
            #expect(error?.code == .insecureKeyFile)
            #expect(error?.reason.contains("chmod 600 \(written.privateKeyPath)") == true)
        }
        chmod(written.privateKeyPath, 0o400)
        #expect(throws: Never.self) { try KeyFiles.loadPrivateKey(path: written.privateKeyPath) }
    }

    @Test func pemRoundTripKeepsTheKid() throws {
        let key = try Ed25519PrivateKey.generate()
        let reloaded = try Ed25519PrivateKey(pem: try key.pemRepresentation())
        #expect(reloaded.keyID == key.keyID)
        #expect(try Ed25519PublicKey(pem: try key.publicKey.pemRepresentation()).rawRepresentation == key.publicKey.rawRepresentation)
    }

    @Test func kidIsFirstEightBytesOfSHA256OfTheRawKey() throws {
        // RFC 8032 test 1 public key; its SHA-256 computed independently with `sha256sum`.
        let raw = Hex.decode("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")!
        let key = try Ed25519PublicKey(rawRepresentation: raw)
        #expect(key.keyID.hex == "21fe31dfa154a261")
    }

    @Test func rfc8032TestVectorSignatureVerifies() throws {
        let key = try Ed25519PublicKey(rawRepresentation: Hex.decode("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")!)
        let signature = Hex.decode(
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
        )!
        #expect(key.isValidSignature(signature, for: []))
        #expect(!key.isValidSignature(signature, for: [0]))
    }

    @Test func encryptedPrivateKeyIsRefused() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("encrypted.pem")
        #expect(try ProcessRunner.run(["openssl", "genpkey", "-algorithm", "ed25519", "-aes256", "-pass", "pass:secret", "-out", path]).status == 0)
        chmod(path, 0o600)
        #expect(throws: CardCryptoError(.encryptedKey, "")) { try KeyFiles.loadPrivateKey(path: path) }
    }

    @Test func nonEd25519KeyIsRefused() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("ec.pem")
        #expect(try ProcessRunner.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", path]).status == 0)
        chmod(path, 0o600)
        #expect(throws: CardCryptoError(.unsupportedKeyType, "")) { try KeyFiles.loadPrivateKey(path: path) }
    }

    @Test func garbageIsNotAKey() {
        #expect(throws: CardCryptoError(.invalidKey, "")) { try Ed25519PublicKey(pem: "not a key") }
        #expect(throws: CardCryptoError(.invalidKey, "")) {
            try Ed25519PrivateKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        }
    }

    @Test func keySetLoadsEveryPEMInAFolder() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let first = try Ed25519PrivateKey.generate()
        let second = try Ed25519PrivateKey.generate()
        try first.publicKey.pemRepresentation().write(toFile: folder.file("a.pem"), atomically: true, encoding: .utf8)
        try second.publicKey.pemRepresentation().write(toFile: folder.file("b.pem"), atomically: true, encoding: .utf8)
        try "not a key, not a .pem".write(toFile: folder.file("README.txt"), atomically: true, encoding: .utf8)
        let set = try KeySetLoader.load(paths: [folder.path])
        #expect(set.keys.map(\.keyID) == [first.keyID, second.keyID])
    }

    @Test func keySetRefusesAPrivateKey() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        _ = try KeyFiles.writeKeyPair(try Ed25519PrivateKey.generate(), directory: folder.path)
        #expect(throws: CardCryptoError(.privateKeyInKeySet, "")) { try KeySetLoader.load(paths: [folder.path]) }
    }

    @Test func emptyKeySetIsAnError() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        #expect(throws: CardCryptoError(.noKeysFound, "")) { try KeySetLoader.load(paths: [folder.path]) }
        #expect(throws: CardCryptoError(.fileNotReadable, "")) { try KeySetLoader.load(paths: [folder.file("missing")]) }
    }

    @Test func developmentKeyInTheRepositoryMatchesThePublishedKeySet() throws {
        let pem = try Data(contentsOf: repositoryRoot.appendingPathComponent("Keys/development/signing-key.pem"))
        let key = try Ed25519PrivateKey(pem: Array(pem))
        let set = try KeySetLoader.load(paths: [repositoryRoot.appendingPathComponent("Keys/public").path])
        #expect(set.entries(for: key.keyID).count == 1)
    }
}
