import Foundation
public import CardToken

/// Builds the set of keys a verifier trusts from PEM files and folders of them.
public enum KeySetLoader {
    /// Loads every path: a folder contributes each `*.pem` file in it (sorted by name); a `.json` file is a
    /// key set as the card service serves it at `GET /v1/keys`; any other file is one PEM key.
    ///
    /// Fails on the first unreadable key, on a private key (a verifier must hold public keys only), on a JSON
    /// entry whose kid does not match its key, and on an empty result, naming the file or folder at fault.
    public static func load(paths: [String]) throws(CardCryptoError) -> TrustedKeySet {
        var set = TrustedKeySet()
        for path in paths {
            if path.hasSuffix(".json") {
                for key in try jsonKeySet(at: path) { set.insert(key) }
                continue
            }
            for file in try pemFiles(at: path) {
                set.insert(try KeyFiles.loadPublicKey(path: file))
            }
        }
        guard !set.isEmpty else {
            throw CardCryptoError(.noKeysFound, "no public keys found in \(paths.joined(separator: ", ")); give a folder of public PEM files or a PEM file")
        }
        return set
    }

    /// The keys of a `{"keys": [{"kid": "…", "pem": "-----BEGIN PUBLIC KEY-----…"}, …]}` document.
    static func jsonKeySet(at path: String) throws(CardCryptoError) -> [Ed25519PublicKey] {
        let bytes = try KeyFiles.readFile(path, limit: 1024 * 1024)
        guard let document = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
              let entries = document["keys"] as? [[String: Any]] else {
            throw CardCryptoError(.invalidKey, "\(path) is not a key set document ({\"keys\": [{\"kid\", \"pem\"}, …]})")
        }
        var keys: [Ed25519PublicKey] = []
        for (index, entry) in entries.enumerated() {
            guard let pem = entry["pem"] as? String else {
                throw CardCryptoError(.invalidKey, "\(path): key \(index) has no \"pem\"")
            }
            let key: Ed25519PublicKey
            do {
                key = try Ed25519PublicKey(pem: pem)
            } catch {
                throw CardCryptoError(error.code, "\(path): key \(index): \(error.reason)")
            }
            if let kid = entry["kid"] as? String, kid != key.keyID.hex {
                throw CardCryptoError(.invalidKey, "\(path): key \(index) claims kid \(kid) but its key's kid is \(key.keyID.hex)")
            }
            keys.append(key)
        }
        return keys
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
