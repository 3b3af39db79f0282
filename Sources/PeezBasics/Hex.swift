/// Lower-case hexadecimal, as kids and token ids are written in JSON and on screen.
public enum Hex {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// The lower-case hex text of `bytes`, written straight into the string's storage (a credential's hash
    /// is encoded on every authenticated request).
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let bytes = Array(bytes)
        return String(unsafeUninitializedCapacity: bytes.count * 2) { text in
            for (index, byte) in bytes.enumerated() {
                text[2 * index] = digit(byte >> 4)
                text[2 * index + 1] = digit(byte & 0x0F)
            }
            return bytes.count * 2
        }
    }

    /// The lower-case hex digit of a value below 16.
    private static func digit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    /// 16 bytes as a UUID's text (8-4-4-4-12 hex digits), lower case unless `uppercase` (as Foundation's
    /// `uuidString`, which formats through `sprintf`, far slower when a run writes tens of thousands).
    public static func uuidText(_ bytes: some Collection<UInt8>, uppercase: Bool = false) -> String {
        let table = uppercase ? upperDigits : digits
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(table[Int(byte >> 4)])
            text.append(table[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static let upperDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// The bytes of hex text (either case), or nil if it is not an even run of hex digits.
    public static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
