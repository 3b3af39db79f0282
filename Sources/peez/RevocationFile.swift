import ArgumentParser
import CardCrypto
import CardToken
import CardWire

/// A revocation list on disk, in the shape the card service publishes (``RevocationListDocument``).
enum RevocationFile {
    static func load(path: String) throws -> RevocationList {
        do {
            return try RevocationListDocument.decode(try KeyFiles.readFile(path, limit: RevocationListDocument.maxSize)).revocationList()
        } catch let error as CardWireError {
            throw ValidationError("\(path): \(error.reason)")
        } catch {
            throw ValidationError("cannot read the revocation list \(path): \(error)")
        }
    }
}
