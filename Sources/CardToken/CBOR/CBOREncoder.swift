/// Writes CBOR in the core deterministic encoding of RFC 8949 §4.2.1: shortest integer and length
/// forms, definite lengths only, and map keys sorted by the bytewise order of their encodings.
///
/// The encoder cannot produce anything else, so every token it helps build re-encodes to itself.
public enum CBOREncoder {
    /// The deterministic encoding of `value`.
    public static func encode(_ value: CBORValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        encode(value, into: &out)
        return out
    }

    /// Appends the deterministic encoding of `value` to `out`.
    public static func encode(_ value: CBORValue, into out: inout [UInt8]) {
        switch value {
        case .unsigned(let n): writeHead(major: 0, argument: n, into: &out)
        case .negative(let n): writeHead(major: 1, argument: n, into: &out)
        case .bytes(let bytes):
            writeHead(major: 2, argument: UInt64(bytes.count), into: &out)
            out.append(contentsOf: bytes)
        case .text(let text):
            var text = text
            text.withUTF8 { utf8 in
                writeHead(major: 3, argument: UInt64(utf8.count), into: &out)
                out.append(contentsOf: utf8)
            }
        case .array(let items):
            writeHead(major: 4, argument: UInt64(items.count), into: &out)
            for item in items { encode(item, into: &out) }
        case .map(let entries):
            writeHead(major: 5, argument: UInt64(entries.count), into: &out)
            let encoded = entries.map { (key: encode($0.key), value: $0.value) }
            for entry in encoded.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
                out.append(contentsOf: entry.key)
                encode(entry.value, into: &out)
            }
        case .tagged(let tag, let item):
            writeHead(major: 6, argument: tag, into: &out)
            encode(item, into: &out)
        case .bool(let flag): out.append(flag ? 0xF5 : 0xF4)
        case .null: out.append(0xF6)
        }
    }

    /// Appends an initial byte and its argument in the shortest form.
    @inlinable
    public static func writeHead(major: UInt8, argument: UInt64, into out: inout [UInt8]) {
        let high = major << 5
        switch argument {
        case 0..<24:
            out.append(high | UInt8(argument))
        case 24...0xFF:
            out.append(high | 24)
            out.append(UInt8(argument))
        case 0x100...0xFFFF:
            out.append(high | 25)
            appendBigEndian(argument, byteCount: 2, into: &out)
        case 0x1_0000...0xFFFF_FFFF:
            out.append(high | 26)
            appendBigEndian(argument, byteCount: 4, into: &out)
        default:
            out.append(high | 27)
            appendBigEndian(argument, byteCount: 8, into: &out)
        }
    }

    @inlinable
    static func appendBigEndian(_ value: UInt64, byteCount: Int, into out: inout [UInt8]) {
        var shift = (byteCount - 1) * 8
        while shift >= 0 {
            out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            shift -= 8
        }
    }
}
