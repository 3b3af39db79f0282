import Foundation

/// Decoding a wire document from untrusted bytes, refusing more than the document can sensibly hold.
enum BoundedJSON {
    /// `T` decoded from `bytes`; `name` and `shape` say in the error what was expected.
    static func decode<T: Decodable>(
        _ type: T.Type,
        from bytes: some Collection<UInt8>,
        limit: Int,
        name: String,
        shape: String
    ) throws(CardWireError) -> T {
        guard bytes.count <= limit else { throw CardWireError(.notADocument, "\(name) larger than \(limit) bytes") }
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch {
            throw CardWireError(.notADocument, "not \(name) (\(shape)): \(error)")
        }
    }
}
