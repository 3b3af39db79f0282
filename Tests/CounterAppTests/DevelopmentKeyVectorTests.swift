import CardCrypto
import CardToken
import CardWire
import CounterApp
import Foundation
import TestSupport
import Testing

/// `Fixtures/vectors/development-key-vectors.json`: signed counter bundles, each case a counter's enrolment and
/// syncs with the answer each gets (`ok` or `development_key`). Both counters (peez counter here, the web counter
/// in Chromium) run them. Signed with the development key and `Fixtures/keys/vectors-primary.pem` (Ed25519 is
/// deterministic, so the file is rewritten byte for byte); `PEEZ_UPDATE_VECTORS=1` rewrites it.
@Suite("Development key vectors")
struct DevelopmentKeyVectorTests {
    struct Vectors: Codable, Equatable {
        struct Step: Codable, Equatable {
            var action: String
            var bundle: String
            var expected: String
        }
        struct Case: Codable, Equatable {
            var id: String
            var description: String
            var steps: [Step]
        }
        var about: String
        var development_key_id: String
        var now: Int64
        var cases: [Case]
    }

    static let file = repositoryRoot.appendingPathComponent("Fixtures/vectors/development-key-vectors.json")
    static let start: Int64 = 1_767_225_600

    /// The vectors as this code makes them.
    static func made() throws -> Vectors {
        // Test keys, public on purpose: read as they are, whatever mode git left them with.
        func key(_ path: String) throws -> Ed25519PrivateKey {
            try Ed25519PrivateKey(pem: try KeyFiles.readFile(repositoryRoot.appendingPathComponent(path).path))
        }
        let (development, production) = (try key("Keys/development/signing-key.pem"), try key("Fixtures/keys/vectors-primary.pem"))
        func bundle(_ offset: Int64, _ keys: [Ed25519PrivateKey], by signer: Ed25519PrivateKey, development flag: Bool? = nil) throws -> String {
            let bytes = try CounterBundle(
                issuedAt: start + offset,
                validUntil: start + offset + CounterBundle.defaultValidity,
                keys: try keys.enumerated().map { try KeySetDocument.Key($1.publicKey, status: $0 == 0 ? .current : .retired) },
                revocations: RevocationListDocument(version: 0, tokenIDs: [], members: [:]),
                development: flag
            ).signed(with: signer)
            return Data(bytes).base64EncodedString()
        }
        func step(_ action: String, _ bundle: String, _ expected: String) -> Vectors.Step {
            .init(action: action, bundle: bundle, expected: expected)
        }
        return Vectors(
            about:
                "Counter bundles (base64 of the signed COSE_Sign1) and what a counter answers to each, in order: enrol on the first, then accept each next at `now`; `ok`, or the refusal's code (`development_key`), after which the case ends. A counter enrolled on a bundle that does not say \"development\": true never trusts the development key.",
            development_key_id: DevelopmentKey.keyID,
            now: start + 600,
            cases: [
                .init(
                    id: "production-without-the-development-key",
                    description: "a production service's bundle: enrolled",
                    steps: [step("enrol", try bundle(0, [production], by: production), "ok")]
                ),
                .init(
                    id: "production-publishing-the-development-key",
                    description: "a production service that publishes the development key beside its own (a default folder): refused",
                    steps: [step("enrol", try bundle(0, [production, development], by: production), "development_key")]
                ),
                .init(
                    id: "production-signed-by-the-development-key",
                    description: "a bundle signed by the development key that does not say it comes from a development service: refused",
                    steps: [step("enrol", try bundle(0, [development], by: development), "development_key")]
                ),
                .init(
                    id: "production-counter-later-given-the-development-key",
                    description: "enrolled on a production bundle; a later bundle carrying the development key is refused",
                    steps: [
                        step("enrol", try bundle(0, [production], by: production), "ok"),
                        step("accept", try bundle(60, [production, development], by: production), "development_key"),
                    ]
                ),
                .init(
                    id: "development-service",
                    description: "a development service says so: its counter trusts the development key, now and later",
                    steps: [
                        step("enrol", try bundle(0, [development], by: development, development: true), "ok"),
                        step("accept", try bundle(60, [development], by: development, development: true), "ok"),
                    ]
                ),
            ]
        )
    }

    @Test func theFileIsWhatTheseKeysSign() throws {
        let made = try Self.made()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        if ProcessInfo.processInfo.environment["PEEZ_UPDATE_VECTORS"] == "1" {
            try (encoder.encode(made) + Data("\n".utf8)).write(to: Self.file)
        }
        #expect(try JSONDecoder().decode(Vectors.self, from: Data(contentsOf: Self.file)) == made, "PEEZ_UPDATE_VECTORS=1 rewrites it")
    }

    @Test func peezCounterAnswersEachStepAsTheVectorsSay() throws {
        let vectors = try JSONDecoder().decode(Vectors.self, from: Data(contentsOf: Self.file))
        #expect(vectors.development_key_id == DevelopmentKey.keyID)
        for vector in vectors.cases {
            var state: CounterState?
            for (index, step) in vector.steps.enumerated() {
                let bytes = Array(Data(base64Encoded: step.bundle)!)
                let answer: String
                do {
                    if let held = state {
                        state = try CounterSync.accept(bytes, into: held, trusting: try held.trust(), now: vectors.now).0
                    } else {
                        state = try CounterSync.enrol(bytes, server: "https://cards.peez.dz", expectedKeyID: nil, now: vectors.now).0
                    }
                    answer = "ok"
                } catch let error as CardWireError {
                    answer = error.code.description
                }
                #expect(answer == step.expected, "\(vector.id), step \(index + 1): \(vector.description)")
                if answer != "ok" { break }
            }
        }
    }
}
