import CardCrypto
import CardToken

/// The verifier under test trusts the vectors' primary key, so inputs derived from the vectors can
/// reach the signature and claims steps (Fixtures/keys/vectors-primary.pub.pem).
let trustedKey = try! Ed25519PublicKey(
    pem: """
        -----BEGIN PUBLIC KEY-----
        MCowBQYDK2VwAyEAGEIjjdcFBNHGjb3igmR5cMyu9nrc5jOmkgZWr3Ue7Fo=
        -----END PUBLIC KEY-----
        """
)
let verifier = CardVerifier(trustedKeys: TrustedKeySet([trustedKey]))

/// One fuzz input. The first byte picks what the rest is:
/// - even: a scanned text, verified as it is;
/// - odd: raw CBOR bytes, decoded directly and also wrapped as `PEEZ1:` + Base45 and verified, so the
///   fuzzer explores the envelope and claims without having to learn Base45 first.
/// Every input must get exactly one verdict without crashing; a valid verdict must survive a re-encode.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCardToken(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: start, count: count))
    guard let mode = input.first else { return 0 }
    let body = Array(input.dropFirst())
    let text: [UInt8]
    if mode & 1 == 0 {
        text = body
    } else {
        if let value = try? CBORDecoder.decode(body) {
            precondition(CBOREncoder.encode(value) == body, "a strictly decoded item must re-encode to its bytes")
        }
        text = Array(CardTokenFormat.prefix.utf8) + Array(Base45.encode(body).utf8)
    }
    let result = verifier.verify(utf8: text, now: 1_767_225_600)
    if result.verdict == .valid {
        precondition(result.claims != nil && result.keyID == trustedKey.keyID)
    }
    return 0
}
