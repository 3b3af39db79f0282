public import CardToken
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Key files on disk: PKCS#8 private keys (mode 0600) and SubjectPublicKeyInfo public keys.
public enum KeyFiles {
    /// Where ``writeKeyPair(_:directory:name:)`` put a pair.
    public struct WrittenPair: Sendable {
        public var privateKeyPath: String
        public var publicKeyPath: String
    }

    /// Loads a private key, refusing a file that group or others may read.
    public static func loadPrivateKey(path: String) throws(CardCryptoError) -> Ed25519PrivateKey {
        try requireOwnerOnly(path, what: "private key")
        do {
            return try Ed25519PrivateKey(pem: try readFile(path))
        } catch {
            throw CardCryptoError(error.code, "\(path): \(error.reason)")
        }
    }

    /// Refuses a secret file (`what`: "private key", "TLS key") that is not a regular file or that group or
    /// others may read, with the command that fixes it.
    public static func requireOwnerOnly(_ path: String, what: String) throws(CardCryptoError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw CardCryptoError(.fileNotReadable, "cannot read the \(what) \(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw CardCryptoError(.fileNotReadable, "the \(what) \(path) is not a regular file")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw CardCryptoError(
                .insecureKeyFile,
                "the \(what) \(path) can be read by group or others (mode \(String(info.st_mode & 0o777, radix: 8))); fix it with: chmod 600 \(path)"
            )
        }
    }

    /// Loads a public key from a SubjectPublicKeyInfo PEM file.
    public static func loadPublicKey(path: String) throws(CardCryptoError) -> Ed25519PublicKey {
        do {
            return try Ed25519PublicKey(pem: try readFile(path))
        } catch {
            throw CardCryptoError(error.code, "\(path): \(error.reason)")
        }
    }

    /// Loads the kid and kind of a PEM file holding either half of a key pair.
    public static func describeKeyFile(path: String) throws(CardCryptoError) -> (keyID: KeyID, isPrivate: Bool) {
        let pem = try readFile(path)
        if String(decoding: pem.prefix(4096), as: UTF8.self).contains("PRIVATE KEY-----") {
            return (try loadPrivateKey(path: path).keyID, true)
        }
        return (try loadPublicKey(path: path).keyID, false)
    }

    /// Writes `key` as `DIRECTORY/NAME.pem` (mode 0600) and its public half as `DIRECTORY/NAME.pub.pem`.
    ///
    /// Creates the directory if needed and never overwrites an existing file.
    public static func writeKeyPair(_ key: Ed25519PrivateKey, directory: String, name: String = "signing-key") throws(CardCryptoError) -> WrittenPair
    {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw CardCryptoError(.fileNotWritable, "cannot create the folder \(directory): \(error.localizedDescription)")
        }
        let pair = WrittenPair(
            privateKeyPath: (directory as NSString).appendingPathComponent("\(name).pem"),
            publicKeyPath: (directory as NSString).appendingPathComponent("\(name).pub.pem")
        )
        for path in [pair.privateKeyPath, pair.publicKeyPath] where FileManager.default.fileExists(atPath: path) {
            throw CardCryptoError(.fileExists, "\(path) already exists; choose another --out folder or --name, or remove the old key first")
        }
        try writeNewFile(path: pair.privateKeyPath, contents: try key.pemRepresentation(), mode: 0o600)
        try writeNewFile(path: pair.publicKeyPath, contents: try key.publicKey.pemRepresentation(), mode: 0o644)
        return pair
    }

    /// Creates `path` exclusively with `mode` (so a secret is never readable by others, even briefly).
    static func writeNewFile(path: String, contents: String, mode: mode_t) throws(CardCryptoError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            let code: CardCryptoError.Code = errno == EEXIST ? .fileExists : .fileNotWritable
            throw CardCryptoError(code, "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        // The umask may have removed bits, never added them; set the exact mode.
        fchmod(descriptor, mode)
        let bytes = Array(contents.utf8)
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else {
                throw CardCryptoError(.fileNotWritable, "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            written += result
        }
        guard fsync(descriptor) == 0 else {
            throw CardCryptoError(.fileNotWritable, "cannot flush \(path) to disk: \(String(cString: strerror(errno)))")
        }
    }

    /// The bytes of a file, refusing anything larger than a key could be.
    public static func readFile(_ path: String, limit: Int = 64 * 1024) throws(CardCryptoError) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CardCryptoError(.fileNotReadable, "cannot read \(path): no such file, or permission denied")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: limit + 1) ?? Data()
        } catch {
            throw CardCryptoError(.fileNotReadable, "cannot read \(path): \(error.localizedDescription)")
        }
        guard data.count <= limit else {
            throw CardCryptoError(.invalidKey, "\(path) is larger than \(limit / 1024) KiB, too large to be a key file")
        }
        return [UInt8](data)
    }
}
