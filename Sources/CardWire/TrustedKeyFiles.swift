import CardCrypto
public import CardToken
import Foundation

/// The keys a verifier trusts, from the files an operator or a vendor has: folders of public PEM files, PEM
/// files, and key set documents (`.json`, as `GET /v1/keys` serves them).
public enum TrustedKeyFiles {
    /// Loads every path; fails on the first that cannot be used, naming it, and on an empty result.
    public static func load(paths: [String]) throws -> TrustedKeySet {
        var set = TrustedKeySet()
        let documents = paths.filter { $0.hasSuffix(".json") }
        for path in documents {
            let bytes = try KeyFiles.readFile(path, limit: KeySetDocument.maxSize)
            do {
                for key in try KeySetDocument.decode(bytes).publicKeys() { set.insert(key) }
            } catch {
                throw CardWireError(error.code, "\(path): \(error.reason)")
            }
        }
        let pemPaths = paths.filter { !$0.hasSuffix(".json") }
        if !pemPaths.isEmpty || set.isEmpty {
            for key in try KeySetLoader.load(paths: pemPaths.isEmpty ? paths : pemPaths).keys { set.insert(key) }
        }
        return set
    }
}
