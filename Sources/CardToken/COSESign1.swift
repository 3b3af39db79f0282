/// A COSE_Sign1 envelope (RFC 9052, CBOR tag 18) as PEEZ uses it: protected header `{1: -8, 4: kid}` (a
/// card) or `{1: -8, 3: content type, 4: kid}` (a signed document such as the counter bundle), an empty
/// unprotected header, the payload and a 64-byte signature.
public struct COSESign1: Sendable, Hashable {
    /// CBOR tag of COSE_Sign1.
    public static let tag: UInt64 = 18
    /// COSE algorithm id of EdDSA.
    public static let algorithmEdDSA: Int64 = -8
    /// Length of an Ed25519 signature.
    public static let signatureByteCount = 64

    enum HeaderKey {
        static let algorithm: Int64 = 1
        static let contentType: Int64 = 3
        static let keyID: Int64 = 4
    }

    /// The serialized protected header, exactly as signed.
    public var protectedHeader: [UInt8]
    /// The serialized claims, exactly as signed.
    public var payload: [UInt8]
    /// The Ed25519 signature over ``signatureInput``.
    public var signature: [UInt8]
    /// The kid read from the protected header.
    public var keyID: KeyID
    /// The content type (3) read from the protected header; a card has none.
    public var contentType: String?

    /// The protected header for an EdDSA signature by the key `keyID`, naming `contentType` if given.
    public static func protectedHeader(keyID: KeyID, contentType: String? = nil) -> [UInt8] {
        CBOREncoder.encode(
            .map(
                [CBORMapEntry(.int(HeaderKey.algorithm), .int(algorithmEdDSA))]
                    + (contentType.map { [CBORMapEntry(.int(HeaderKey.contentType), .text($0))] } ?? [])
                    + [CBORMapEntry(.int(HeaderKey.keyID), .bytes(keyID.bytes))]
            )
        )
    }

    /// The bytes that are signed: `["Signature1", protected, h'', payload]`, deterministically encoded.
    public static func signatureInput(protectedHeader: [UInt8], payload: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(protectedHeader.count + payload.count + 24)
        CBOREncoder.writeHead(major: 4, argument: 4, into: &out)
        CBOREncoder.encode(.text("Signature1"), into: &out)
        CBOREncoder.writeHead(major: 2, argument: UInt64(protectedHeader.count), into: &out)
        out.append(contentsOf: protectedHeader)
        CBOREncoder.writeHead(major: 2, argument: 0, into: &out)
        CBOREncoder.writeHead(major: 2, argument: UInt64(payload.count), into: &out)
        out.append(contentsOf: payload)
        return out
    }

    /// The bytes this envelope's signature covers.
    public var signatureInput: [UInt8] {
        Self.signatureInput(protectedHeader: protectedHeader, payload: payload)
    }

    /// The envelope's deterministic CBOR encoding.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(protectedHeader.count + payload.count + signature.count + 8)
        CBOREncoder.writeHead(major: 6, argument: Self.tag, into: &out)
        CBOREncoder.writeHead(major: 4, argument: 4, into: &out)
        CBOREncoder.writeHead(major: 2, argument: UInt64(protectedHeader.count), into: &out)
        out.append(contentsOf: protectedHeader)
        CBOREncoder.writeHead(major: 5, argument: 0, into: &out)
        CBOREncoder.writeHead(major: 2, argument: UInt64(payload.count), into: &out)
        out.append(contentsOf: payload)
        CBOREncoder.writeHead(major: 2, argument: UInt64(signature.count), into: &out)
        out.append(contentsOf: signature)
        return out
    }

    public init(protectedHeader: [UInt8], payload: [UInt8], signature: [UInt8], keyID: KeyID, contentType: String? = nil) {
        self.protectedHeader = protectedHeader
        self.payload = payload
        self.signature = signature
        self.keyID = keyID
        self.contentType = contentType
    }

    /// The parts of a COSE_Sign1 envelope, read from already strictly decoded CBOR (verification steps 5 and 6
    /// for every envelope): the shape `18([bstr, {}, bstr, bstr(64)])` and a protected header that is a strict
    /// map naming EdDSA. What else the header must hold is the caller's to check.
    ///
    /// Throws `notCOSESign1` for the wrong shape, `invalidProtectedHeader` for a header that is not a map or
    /// names no algorithm, and `unsupportedAlgorithm` when it names another algorithm than EdDSA.
    public static func parts(
        of cbor: CBORValue
    ) throws(CardTokenError) -> (protectedHeader: [UInt8], header: CBORValue, payload: [UInt8], signature: [UInt8]) {
        guard case .tagged(Self.tag, .array(let items)) = cbor else {
            throw CardTokenError(.notCOSESign1, "the item is not a tag-18 (COSE_Sign1) array")
        }
        guard items.count == 4,
            case .bytes(let protectedHeader) = items[0],
            case .map(let unprotected) = items[1],
            case .bytes(let payload) = items[2],
            case .bytes(let signature) = items[3]
        else {
            throw CardTokenError(.notCOSESign1, "COSE_Sign1 must be [bstr, map, bstr, bstr]")
        }
        guard unprotected.isEmpty else {
            throw CardTokenError(.notCOSESign1, "the unprotected header must be empty")
        }
        guard signature.count == Self.signatureByteCount else {
            throw CardTokenError(.notCOSESign1, "the signature is \(signature.count) bytes, not \(Self.signatureByteCount)")
        }
        let header: CBORValue
        do {
            header = try CBORDecoder.decode(protectedHeader)
        } catch {
            throw CardTokenError(.invalidProtectedHeader, "the protected header is not strict CBOR: \(error.reason)")
        }
        guard case .map = header else {
            throw CardTokenError(.invalidProtectedHeader, "the protected header is not a map")
        }
        guard let algorithm = header[.int(HeaderKey.algorithm)] else {
            throw CardTokenError(.invalidProtectedHeader, "the protected header has no algorithm (1)")
        }
        guard algorithm.int64Value == Self.algorithmEdDSA else {
            throw CardTokenError(.unsupportedAlgorithm, "the algorithm is \(algorithm), only EdDSA (-8) is accepted")
        }
        return (protectedHeader, header, payload, signature)
    }

    /// The content type (3) a protected header names, nil when none; `invalidProtectedHeader` if it is not text.
    static func contentType(in header: CBORValue) throws(CardTokenError) -> String? {
        guard let value = header[.int(HeaderKey.contentType)] else { return nil }
        guard case .text(let text) = value else {
            throw CardTokenError(.invalidProtectedHeader, "the protected header's content type (3) is not text")
        }
        return text
    }

    /// Parses an envelope signed by a key named by its kid (a card, or a signed document) from already strictly
    /// decoded CBOR (verification steps 5 and 6): ``parts(of:)``, and an 8-byte kid.
    public init(cbor: CBORValue) throws(CardTokenError) {
        let (protectedHeader, header, payload, signature) = try Self.parts(of: cbor)
        guard case .bytes(let kidBytes)? = header[.int(HeaderKey.keyID)], let keyID = KeyID(bytes: kidBytes) else {
            throw CardTokenError(.invalidProtectedHeader, "the protected header has no 8-byte kid (4)")
        }
        let contentType = try Self.contentType(in: header)
        self.init(protectedHeader: protectedHeader, payload: payload, signature: signature, keyID: keyID, contentType: contentType)
    }
}
