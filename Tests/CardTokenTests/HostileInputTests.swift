import CardCrypto
import CardToken
import Foundation
import PeezBasics
import Testing

/// A randomised property test of the verifier's promise: every input gets exactly one verdict, and
/// nothing but a genuine, current card is valid. The libFuzzer target in `Fuzz/` runs the same
/// property for millions of inputs; this runs a bounded number on every test run.
@Suite("Hostile input")
struct HostileInputTests {
    @Test func mutatedTokensNeverCrashAndNeverTurnValid() throws {
        let manifest = VectorManifest.shared
        let seeds = manifest.vectors.filter { $0.expected.verdict == "valid" && $0.trusted_keys == ["primary"] }
        let vector = try #require(seeds.first)
        let verifier = try manifest.verifier(for: vector)
        var random = SplitMix64(seed: 0x5EED)
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:".utf8)
        var verdicts: [Verdict: Int] = [:]
        for round in 0..<20_000 {
            let seed = seeds[round % seeds.count].token.trimmingCharacters(in: .whitespacesAndNewlines)
            let prefixLength = seed.hasPrefix(Presentation.prefix) ? Presentation.prefix.utf8.count : CardTokenFormat.prefix.utf8.count
            var bytes = Array(seed.utf8)
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let index = Int.random(in: prefixLength..<bytes.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes[index] = alphabet.randomElement(using: &random)!
                case 1: bytes.remove(at: index)
                case 2: bytes.insert(alphabet.randomElement(using: &random)!, at: index)
                default: bytes[index] = UInt8.random(in: 0...255, using: &random)
                }
            }
            let result = verifier.verify(utf8: bytes, now: vector.now)
            verdicts[result.verdict, default: 0] += 1
            if result.verdict == .valid {
                // A mutation may only leave a card or presentation valid if it decodes to the very same bytes.
                let mutated = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(mutated.prefix(prefixLength) == seed.prefix(prefixLength))
                #expect(try Base45.decode(Array(mutated.utf8.dropFirst(prefixLength))) == Base45.decode(Array(seed.utf8.dropFirst(prefixLength))))
            }
        }
        #expect(verdicts[.malformed, default: 0] > 0 && verdicts[.badSignature, default: 0] > 0)
    }

    @Test func randomBytesAreMalformed() {
        let verifier = CardVerifier(trustedKeys: TrustedKeySet())
        var random = SplitMix64(seed: 42)
        for _ in 0..<5_000 {
            let length = Int.random(in: 0..<400, using: &random)
            var bytes = Array("PEEZ1:".utf8)
            bytes += (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            #expect(verifier.verify(utf8: bytes, now: 0).verdict == .malformed)
        }
    }
}
