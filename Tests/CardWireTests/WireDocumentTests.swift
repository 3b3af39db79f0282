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
        try "{\"keys\": [{\"kid\": \"0000000000000000\", \"pem\": \"\(pem)\"}]}".write(
            toFile: folder.file("lying.json"),
            atomically: true,
            encoding: .utf8
        )
        #expect(throws: CardWireError(.invalidKey, "")) { try TrustedKeyFiles.load(paths: [folder.file("lying.json")]) }
    }

    @Test func theServedKeySetRoundTripsAndEachKeyIsCheckedAgainstItsPEM() throws {
        let current = try Ed25519PrivateKey.generate().publicKey
        let retired = try Ed25519PrivateKey.generate().publicKey
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

    @Test func theKeySetCarriesEachKeysWindowAndItsVerifierKeepsToIt() throws {
        let signer = try Ed25519PrivateKey.generate()
        let issuedAt: Int64 = 1_800_000_000
        let windows = [signer.keyID: KeyValidityWindow(publishedAt: issuedAt - 86_400, retiredAt: issuedAt + 3_600)]
        let document = try KeySetDocument(current: signer.publicKey, retired: [], windows: windows)
        let json = try #require(String(data: try JSONEncoder().encode(document), encoding: .utf8))
        #expect(json.contains("\"published_at\":\(issuedAt - 86_400)") && json.contains("\"retired_at\":\(issuedAt + 3_600)"))
        let unbounded = try KeySetDocument(current: signer.publicKey, retired: [])
        let unboundedJSON = try #require(String(data: try JSONEncoder().encode(unbounded), encoding: .utf8))
        #expect(
            unboundedJSON.contains("\"published_at\":null") && unboundedJSON.contains("\"retired_at\":null"),
            "a window with no bound is written as nulls, not left out"
        )

        let trusted = try KeySetDocument.decode(Array(json.utf8)).trustedKeys()
        let issuer = CardIssuer(signingKey: signer)
        func verdict(issuedAt: Int64) throws -> VerificationResult {
            let token = try issuer.issue(CardClaims(subject: "PEEZ-20251103-00002", expiresAt: issuedAt + 30 * 86_400, issuedAt: issuedAt))
            return CardVerifier(trustedKeys: trusted).verify(token, now: issuedAt + 86_400)
        }
        #expect(try verdict(issuedAt: issuedAt).verdict == .valid)
        let late = try verdict(issuedAt: issuedAt + 3_600 + 301)
        #expect(late.verdict == .badClaims && late.step == 9 && late.detail.contains("after its key was retired"), "\(late.detail)")
        #expect(try verdict(issuedAt: issuedAt - 86_400 - 301).verdict == .badClaims)

        var backwards = document
        backwards.keys[0].retiredAt = issuedAt - 2 * 86_400
        #expect(throws: CardWireError(.invalidKey, "")) { try backwards.trustedKeys() }
    }

    @Test func thePublishedFolderKeepsEveryKeysWindowAcrossUpdates() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let published = PublishedKeyFolder(path: folder.file("public"))
        #expect(try published.keys().isEmpty && published.windows().isEmpty, "a folder not made yet holds nothing")
        let first = try Ed25519PrivateKey.generate().keyID
        let second = try Ed25519PrivateKey.generate().keyID
        try published.record(KeyValidityWindow(publishedAt: 100), for: first)
        try published.record(KeyValidityWindow(publishedAt: 200), for: second)
        try published.record(KeyValidityWindow(publishedAt: 100, retiredAt: 250), for: first)
        #expect(
            try published.windows() == [
                first: KeyValidityWindow(publishedAt: 100, retiredAt: 250),
                second: KeyValidityWindow(publishedAt: 200),
            ]
        )
        try #"{"not-a-kid": {}}"#.write(toFile: published.windowsPath, atomically: true, encoding: .utf8)
        #expect(throws: CardWireError(.invalidEntry, "")) { try published.windows() }
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
