import CardCrypto
public import CardToken
import Foundation

/// The keys a verifier trusts, from the files an operator or a vendor has: folders of public PEM files, PEM
/// files, and key set documents (`.json`, as `GET /v1/keys` serves them). A folder's `windows.json` (see
/// ``PublishedKeyFolder``) gives its keys their validity windows, as the served document would.
public enum TrustedKeyFiles {
    /// Loads every path; fails on the first that cannot be used, naming it, and on an empty result.
    public static func load(paths: [String]) throws -> TrustedKeySet {
        var set = TrustedKeySet()
        let documents = paths.filter { $0.hasSuffix(".json") }
        for path in documents {
            let bytes = try KeyFiles.readFile(path, limit: KeySetDocument.maxSize)
            do {
                for entry in try KeySetDocument.decode(bytes).trustedKeys().entries { set.insert(entry.key, window: entry.window) }
            } catch {
                throw CardWireError(error.code, "\(path): \(error.reason)")
            }
        }
        let pemPaths = paths.filter { !$0.hasSuffix(".json") }
        if !pemPaths.isEmpty || set.isEmpty {
            // Checks every path and refuses an empty result; a folder's windows.json gives its keys' windows.
            let keys = try KeySetLoader.load(paths: pemPaths.isEmpty ? paths : pemPaths).keys
            var windows: [KeyID: KeyValidityWindow] = [:]
            for path in pemPaths where isFolder(path) {
                windows.merge(try PublishedKeyFolder(path: path).windows()) { first, _ in first }
            }
            for key in keys { set.insert(key, window: windows[key.keyID] ?? .unbounded) }
        }
        return set
    }

    private static func isFolder(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
