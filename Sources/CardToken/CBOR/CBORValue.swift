/// A decoded CBOR data item, restricted to what the card format can carry.
///
/// Floating-point numbers and simple values other than `false`, `true` and `null` are not represented:
/// the strict decoder rejects them.
public indirect enum CBORValue: Hashable, Sendable {
    /// Major type 0.
    case unsigned(UInt64)
    /// Major type 1: the value is `-1 - n`; `n` is stored.
    case negative(UInt64)
    /// Major type 2.
    case bytes([UInt8])
    /// Major type 3.
    case text(String)
    /// Major type 4.
    case array([CBORValue])
    /// Major type 5, entries in the order they were written (or will be sorted into when encoded).
    case map([CBORMapEntry])
    /// Major type 6.
    case tagged(UInt64, CBORValue)
    /// Simple values 20 and 21.
    case bool(Bool)
    /// Simple value 22.
    case null

    /// A signed integer value, whichever major type holds it.
    public static func int(_ value: Int64) -> CBORValue {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-(value + 1)))
    }

    /// The value as a signed integer, if it is an integer that fits in `Int64`.
    public var int64Value: Int64? {
        switch self {
        case .unsigned(let n): return n <= UInt64(Int64.max) ? Int64(n) : nil
        case .negative(let n): return n <= UInt64(Int64.max) ? -1 - Int64(n) : nil
        default: return nil
        }
    }

    /// The entries, if this is a map.
    public var mapEntries: [CBORMapEntry]? {
        if case .map(let entries) = self { return entries }
        return nil
    }

    /// The value stored under `key`, if this is a map that holds it.
    public subscript(key: CBORValue) -> CBORValue? {
        mapEntries?.first(where: { $0.key == key })?.value
    }
}

/// One key/value pair of a CBOR map.
public struct CBORMapEntry: Hashable, Sendable {
    public var key: CBORValue
    public var value: CBORValue

    public init(_ key: CBORValue, _ value: CBORValue) {
        self.key = key
        self.value = value
    }
}
