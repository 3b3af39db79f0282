/// Base64url without padding (RFC 4648 §5), as JWKs and the device-key route write raw keys.
public enum Base64URL {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The unpadded base64url text of `bytes`.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let bytes = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            var group: UInt32 = 0
            for (offset, byte) in chunk.enumerated() { group |= UInt32(byte) << (16 - 8 * offset) }
            for position in 0...chunk.count { out.append(alphabet[Int(group >> (18 - 6 * position) & 0x3F)]) }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of strict unpadded base64url text, or nil: only the 64 characters of the URL-safe alphabet,
    /// no `=`, no white space, no length ≡ 1 (mod 4), and no stray bits in the last character (so every
    /// byte string has exactly one text).
    public static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count * 3 / 4)
        var group: UInt32 = 0
        var bits = 0
        for character in utf8 {
            guard let value = value(character) else { return nil }
            group = group << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: group >> UInt32(bits)))
                group &= (1 << UInt32(bits)) - 1
            }
        }
        guard group == 0 else { return nil }
        return out
    }

    private static func value(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return character - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return character - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return character - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): return 62
        case UInt8(ascii: "_"): return 63
        default: return nil
        }
    }
}
