/// A strict, bounded CBOR decoder for untrusted bytes.
///
/// It accepts exactly the deterministic encoding that ``CBOREncoder`` writes and rejects everything else
/// with a named ``CardTokenError/Code``:
/// - more than ``Limits/maxBytes`` bytes in all: `sizeLimitExceeded`;
/// - an array, map or tag more than ``Limits/maxDepth`` containers deep: `depthLimitExceeded`;
/// - indefinite lengths (additional information 31): `indefiniteLength`;
/// - a length or count beyond the bytes left, checked before anything is allocated: `truncated`;
/// - a non-shortest argument, or map keys not in strictly increasing bytewise order: `nonDeterministicEncoding`;
/// - floats, `undefined`, other simple values and reserved additional information: `unsupportedCBOR`;
/// - text that is not UTF-8: `invalidUTF8`; anything after the item: `trailingBytes`.
public struct CBORDecoder {
    /// Bounds applied while decoding.
    public struct Limits: Sendable {
        /// The most bytes one decode accepts.
        public var maxBytes: Int
        /// How many arrays, maps and tags may enclose one another; the outermost counts as 1.
        public var maxDepth: Int

        public init(maxBytes: Int, maxDepth: Int) {
            self.maxBytes = maxBytes
            self.maxDepth = maxDepth
        }

        /// The card format's bounds: 2,048 bytes, nesting at most 4 deep.
        public static let cardToken = Limits(maxBytes: 2048, maxDepth: 4)
    }

    private let bytes: [UInt8]
    private let limits: Limits
    private var position = 0

    private init(bytes: [UInt8], limits: Limits) {
        self.bytes = bytes
        self.limits = limits
    }

    /// Decodes exactly one item that spans all of `bytes`.
    public static func decode(_ bytes: [UInt8], limits: Limits = .cardToken) throws(CardTokenError) -> CBORValue {
        guard bytes.count <= limits.maxBytes else {
            throw CardTokenError(.sizeLimitExceeded, "CBOR input is \(bytes.count) bytes; at most \(limits.maxBytes) are accepted")
        }
        var decoder = CBORDecoder(bytes: bytes, limits: limits)
        let value = try decoder.decodeItem(depth: 0)
        guard decoder.position == bytes.count else {
            throw CardTokenError(.trailingBytes, "\(bytes.count - decoder.position) byte(s) follow the CBOR item")
        }
        return value
    }

    private var remaining: Int { bytes.count - position }

    private mutating func readByte() throws(CardTokenError) -> UInt8 {
        guard position < bytes.count else {
            throw CardTokenError(.truncated, "CBOR ends in the middle of an item at byte \(position)")
        }
        defer { position += 1 }
        return bytes[position]
    }

    /// Reads the argument that follows an initial byte, insisting on the shortest form.
    private mutating func readArgument(_ info: UInt8) throws(CardTokenError) -> UInt64 {
        let start = position - 1
        let value: UInt64
        let minimum: UInt64
        switch info {
        case 0..<24: return UInt64(info)
        case 24:
            value = try readBigEndian(1)
            minimum = 24
        case 25:
            value = try readBigEndian(2)
            minimum = 0x100
        case 26:
            value = try readBigEndian(4)
            minimum = 0x1_0000
        case 27:
            value = try readBigEndian(8)
            minimum = 0x1_0000_0000
        case 31: throw CardTokenError(.indefiniteLength, "indefinite-length item at byte \(start); only definite lengths are allowed")
        default: throw CardTokenError(.unsupportedCBOR, "reserved additional information \(info) at byte \(start)")
        }
        guard value >= minimum else {
            throw CardTokenError(.nonDeterministicEncoding, "argument \(value) at byte \(start) is not in its shortest form")
        }
        return value
    }

    private mutating func readBigEndian(_ count: Int) throws(CardTokenError) -> UInt64 {
        guard remaining >= count else {
            throw CardTokenError(.truncated, "CBOR ends inside a \(count)-byte argument at byte \(position)")
        }
        var value: UInt64 = 0
        for _ in 0..<count {
            value = value << 8 | UInt64(bytes[position])
            position += 1
        }
        return value
    }

    /// Checks a declared length against the bytes left before anything is allocated for it.
    private func checkedLength(_ length: UInt64, minimumBytesEach: Int, what: String) throws(CardTokenError) -> Int {
        guard length <= UInt64(remaining / minimumBytesEach) else {
            throw CardTokenError(.truncated, "\(what) declares \(length) but only \(remaining) byte(s) are left")
        }
        return Int(length)
    }

    private mutating func enterContainer(_ depth: Int) throws(CardTokenError) -> Int {
        let inner = depth + 1
        guard inner <= limits.maxDepth else {
            throw CardTokenError(.depthLimitExceeded, "items nest more than \(limits.maxDepth) deep at byte \(position - 1)")
        }
        return inner
    }

    private mutating func decodeItem(depth: Int) throws(CardTokenError) -> CBORValue {
        let initial = try readByte()
        let major = initial >> 5
        let info = initial & 0x1F
        // Read the argument before checking it against `remaining`: a method call on `self` with
        // `try readArgument(...)` nested in its arguments would see the position before the argument.
        let argument = major == 7 ? 0 : try readArgument(info)
        switch major {
        case 0:
            return .unsigned(argument)
        case 1:
            return .negative(argument)
        case 2:
            let length = try checkedLength(argument, minimumBytesEach: 1, what: "a byte string")
            defer { position += length }
            return .bytes(Array(bytes[position..<position + length]))
        case 3:
            let length = try checkedLength(argument, minimumBytesEach: 1, what: "a text string")
            let start = position
            position += length
            guard let text = String(validating: bytes[start..<position], as: UTF8.self) else {
                throw CardTokenError(.invalidUTF8, "the text string at byte \(start) is not valid UTF-8")
            }
            return .text(text)
        case 4:
            let count = try checkedLength(argument, minimumBytesEach: 1, what: "an array")
            let inner = try enterContainer(depth)
            var items: [CBORValue] = []
            items.reserveCapacity(count)
            for _ in 0..<count { items.append(try decodeItem(depth: inner)) }
            return .array(items)
        case 5:
            let count = try checkedLength(argument, minimumBytesEach: 2, what: "a map")
            let inner = try enterContainer(depth)
            var entries: [CBORMapEntry] = []
            entries.reserveCapacity(count)
            var previousKey: Range<Int>? = nil
            for _ in 0..<count {
                let keyStart = position
                let key = try decodeItem(depth: inner)
                let keyRange = keyStart..<position
                if let previous = previousKey,
                    !bytes[previous].lexicographicallyPrecedes(bytes[keyRange])
                {
                    throw CardTokenError(.nonDeterministicEncoding, "map key at byte \(keyStart) is repeated or out of bytewise order")
                }
                previousKey = keyRange
                entries.append(CBORMapEntry(key, try decodeItem(depth: inner)))
            }
            return .map(entries)
        case 6:
            let inner = try enterContainer(depth)
            return .tagged(argument, try decodeItem(depth: inner))
        default:
            switch info {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22: return .null
            case 31: throw CardTokenError(.indefiniteLength, "a stray \"break\" byte at byte \(position - 1)")
            default:
                throw CardTokenError(
                    .unsupportedCBOR,
                    "simple value or float (additional information \(info)) at byte \(position - 1) is not used by the card format"
                )
            }
        }
    }
}
