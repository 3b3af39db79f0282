import CardCrypto
import CardWire
import CounterApp
import Foundation
import Testing

/// The shared renewal vectors (`Fixtures/vectors/counter-renewal-vectors.json`), as `peez counter` judges them;
/// the web counter runs the same file in Chromium.
@Suite("Counter renewal vectors")
struct RenewalVectorTests {
    struct CardVectors: Decodable {
        struct Vector: Decodable {
            var id: String
            var token: String
        }
        var public_keys: [String: String]
        var vectors: [Vector]
    }

    struct Cases: Decodable {
        struct Case: Decodable {
            var id: String
            var description: String
            var card: String
            var now: Int64
            var revocations: RevocationListDocument
            var renewals: [RenewalListDocument]
            var expected: Expected
        }
        struct Expected: Decodable {
            var code: String
            var paid_until: Int64?
        }
        var cases: [Case]
    }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/vectors")

    static func load<T: Decodable>(_ name: String, as type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: Data(contentsOf: fixtures.appendingPathComponent(name)))
    }

    @Test func everyRenewalVectorGetsItsExpectedAnswer() throws {
        let cards = try Self.load("card-token-vectors.json", as: CardVectors.self)
        let cases = try Self.load("counter-renewal-vectors.json", as: Cases.self).cases
        #expect(cases.count >= 13)
        let keys = try KeySetDocument(current: try Ed25519PublicKey(pem: cards.public_keys["primary"]!), retired: []).keys
        for vector in cases {
            let token = try #require(cards.vectors.first { $0.id == vector.card }?.token, "\(vector.id): no card vector \(vector.card)")
            // The renewal lists as a counter syncs them: the first in a whole bundle, then each in a delta.
            var trust: CounterTrust?
            for (index, renewals) in vector.renewals.enumerated() {
                let bundle = CounterBundle(
                    issuedAt: vector.now - 60 + Int64(index),
                    validUntil: vector.now + 86_400,
                    keys: keys,
                    revocations: index == 0 ? vector.revocations : RevocationListDocument(version: 0, tokenIDs: [], members: [:], since: 0),
                    renewals: renewals
                )
                trust = try trust.map { try $0.applying(bundle) } ?? CounterTrust(whole: bundle)
            }
            let state = CounterState(
                server: "https://cards.peez.dz",
                anchorKeys: keys,
                bundles: [],
                newestServerTime: vector.now - 60,
                lastSyncAt: vector.now
            )
            let verdict = CounterVerdict.judge(Array(token.utf8), trust: try #require(trust), state: state, now: vector.now)
            #expect(verdict.code == vector.expected.code, "\(vector.id): \(vector.description)")
            #expect(verdict.renewal?.paidUntil == vector.expected.paid_until, "\(vector.id): the paid-until shown")
        }
    }
}
