/// An error thrown by the ``CardToken`` module: a stable ``code`` to branch on and a human ``reason``.
///
/// Equality and hashing consider the code only, so tests can compare against a bare code without
/// caring about the wording of the reason.
public struct CardTokenError: Error, Hashable, CustomStringConvertible, Sendable {
    /// The kind of error. New codes can be added without breaking callers.
    public let code: Code
    /// What exactly was wrong, for a person to act on.
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code): \(reason)" }

    public static func == (lhs: CardTokenError, rhs: CardTokenError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// A stable error code: an opaque struct over a private enum, so cases can be added later.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Backing: String, Hashable, Sendable {
            case missingPrefix, invalidBase45, sizeLimitExceeded, truncated, trailingBytes, indefiniteLength
            case depthLimitExceeded, nonDeterministicEncoding, unsupportedCBOR, invalidUTF8
            case notCOSESign1, invalidProtectedHeader, unsupportedAlgorithm, invalidClaims, signingFailed
        }
        private let backing: Backing
        private init(_ backing: Backing) { self.backing = backing }
        public var description: String { backing.rawValue }

        /// The text does not start with `PEEZ1:` (or is empty).
        public static let missingPrefix = Code(.missingPrefix)
        /// A character outside the Base45 alphabet, a length ≡ 1 (mod 3) or a chunk out of range.
        public static let invalidBase45 = Code(.invalidBase45)
        /// The input is larger than the format allows.
        public static let sizeLimitExceeded = Code(.sizeLimitExceeded)
        /// A CBOR item or length runs past the end of the bytes.
        public static let truncated = Code(.truncated)
        /// Bytes follow a complete CBOR item.
        public static let trailingBytes = Code(.trailingBytes)
        /// An indefinite-length CBOR item: deterministic encoding forbids them.
        public static let indefiniteLength = Code(.indefiniteLength)
        /// Arrays, maps and tags nest deeper than the format allows.
        public static let depthLimitExceeded = Code(.depthLimitExceeded)
        /// A non-shortest integer or length, or map keys out of order or repeated.
        public static let nonDeterministicEncoding = Code(.nonDeterministicEncoding)
        /// A CBOR feature the card format never uses (floats, undefined, reserved values).
        public static let unsupportedCBOR = Code(.unsupportedCBOR)
        /// A text string that is not valid UTF-8.
        public static let invalidUTF8 = Code(.invalidUTF8)
        /// The item is not a tag-18 COSE_Sign1 array of the required shape.
        public static let notCOSESign1 = Code(.notCOSESign1)
        /// The protected header is not a map with alg and an 8-byte kid.
        public static let invalidProtectedHeader = Code(.invalidProtectedHeader)
        /// The protected header names an algorithm other than EdDSA (-8).
        public static let unsupportedAlgorithm = Code(.unsupportedAlgorithm)
        /// The claims are missing, mistyped or out of their limits.
        public static let invalidClaims = Code(.invalidClaims)
        /// The signer could not produce a signature.
        public static let signingFailed = Code(.signingFailed)
    }
}
