import ArgumentParser
import CardToken
import Foundation

/// A revocation list on disk, in the JSON shape the card service publishes:
/// `{"token_ids": ["<16 hex>", …], "members": {"PEEZ-…": <revoked-before epoch seconds>, …}}`.
enum RevocationFile {
    struct Document: Decodable {
        var token_ids: [String]?
        var members: [String: UInt64]?
    }

    static func load(path: String) throws -> RevocationList {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ValidationError("cannot read the revocation list \(path): \(error.localizedDescription)")
        }
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: data)
        } catch {
            throw ValidationError("\(path) is not a revocation list ({\"token_ids\": [...], \"members\": {...}}): \(error)")
        }
        var list = RevocationList(revokedBefore: document.members ?? [:])
        for hex in document.token_ids ?? [] {
            guard let id = TokenID(hex: hex) else {
                throw ValidationError("\(path): token id '\(hex)' is not 16 hex digits")
            }
            list.revokedTokenIDs.insert(id)
        }
        return list
    }
}
