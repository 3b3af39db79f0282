public import CardToken
import Foundation

/// Builds the set of keys a verifier trusts from PEM files and folders of them.
public enum KeySetLoader {
    /// Loads every path: a folder contributes each `*.pem` file in it (sorted by name); a file is one PEM key.
    /// (Key set documents, the JSON the card service serves, are read by `CardWire`.)
    ///
    /// Fails on the first unreadable key, on a private key (a verifier must hold public keys only), and on an
    /// empty result, naming the file or folder at fault.
    public static func load(paths: [String]) throws(CardCryptoError) -> TrustedKeySet {
        var set = TrustedKeySet()
        for path in paths {
            for file in try pemFiles(at: path) {
                set.insert(try KeyFiles.loadPublicKey(path: file))
            }
        }
        guard !set.isEmpty else {
            throw CardCryptoError(
                .noKeysFound,
                "no public keys found in \(paths.joined(separator: ", ")); give a folder of public PEM files or a PEM file"
            )
        }
        return set
    }

    private static func pemFiles(at path: String) throws(CardCryptoError) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CardCryptoError(.fileNotReadable, "\(path) does not exist")
        }
        guard isDirectory.boolValue else { return [path] }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw CardCryptoError(.fileNotReadable, "cannot list \(path): \(error.localizedDescription)")
        }
        return names.filter { $0.hasSuffix(".pem") }.sorted().map { (path as NSString).appendingPathComponent($0) }
    }
}
