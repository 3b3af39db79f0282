import CardCrypto
import CardToken
import CardWire
import Foundation
import TestSupport
import Testing

@Suite("Wire documents")
struct WireDocumentTests {
    @Test func keySetLoadsTheServiceJSONDocumentAndChecksItsKids() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let key = try Ed25519PrivateKey.generate().publicKey
        let pem = try key.pemRepresentation().replacingOccurrences(of: "\n", with: "\\n")
        try "{\"keys\": [{\"kid\": \"\(key.keyID.hex)\", \"pem\": \"\(pem)\", \"status\": \"current\"}]}"
            .write(toFile: folder.file("keys.json"), atomically: true, encoding: .utf8)
        #expect(try TrustedKeyFiles.load(paths: [folder.file("keys.json")]).keys.map(\.keyID) == [key.keyID])
        try "{\"keys\": [{\"kid\": \"0000000000000000\", \"pem\": \"\(pem)\"}]}".write(toFile: folder.file("lying.json"), atomically: true, encoding: .utf8)
        #expect(throws: CardWireError(.invalidKey, "")) { try TrustedKeyFiles.load(paths: [folder.file("lying.json")]) }
    }

    @Test func theServedKeySetRoundTripsAndEachKeyIsCheckedAgainstItsPEM() throws {
        let current = try Ed25519PrivateKey.generate().publicKey, retired = try Ed25519PrivateKey.generate().publicKey
        let document = try KeySetDocument(current: current, retired: [retired])
        #expect(document.keys.map(\.status) == [.current, .retired])
        let decoded = try KeySetDocument.decode(Array(try JSONEncoder().encode(document)))
        #expect(decoded == document)
        #expect(try decoded.publicKeys().map(\.keyID) == [current.keyID, retired.keyID])
        var swapped = document
        swapped.keys[0].x = document.keys[1].x
        #expect(throws: CardWireError(.invalidKey, "")) { try swapped.publicKeys() }
        var otherCurve = document
        otherCurve.keys[0].crv = "X25519"
        #expect(throws: CardWireError(.invalidKey, "")) { try otherCurve.publicKeys() }
    }

    @Test func aRevocationListReadsAsTheVerifierUsesIt() throws {
        let text = #"{"version": 3, "token_ids": ["00112233445566ff"], "members": {"PEEZ-20251103-00002": 1795423432}}"#
        let document = try RevocationListDocument.decode(Array(text.utf8))
        #expect(document.version == 3)
        let list = try document.revocationList()
        #expect(list.revokedTokenIDs == [TokenID(hex: "00112233445566ff")!])
        #expect(list.revokedBefore == ["PEEZ-20251103-00002": 1_795_423_432])
        #expect(try RevocationListDocument.decode(Array(#"{"members": {}}"#.utf8)).tokenIDs.isEmpty, "a hand-made file may leave lists out")
        #expect(throws: CardWireError(.invalidEntry, "")) {
            try RevocationListDocument.decode(Array(#"{"token_ids": ["xyz"]}"#.utf8)).revocationList()
        }
        #expect(throws: CardWireError(.notADocument, "")) { try RevocationListDocument.decode(Array("[1,2]".utf8)) }
    }
}
