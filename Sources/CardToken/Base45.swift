/// Base45 as RFC 9285 defines it: the 45 characters of QR alphanumeric mode, two bytes to three characters.
public enum Base45 {
    /// The RFC's alphabet, in value order.
    static let alphabet: [UInt8] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:".utf8)

    /// Value of each ASCII byte, or 0xFF where the byte is not in the alphabet (lower case is not).
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = UInt8(value) }
        return table
    }()

    /// The Base45 text for `bytes`.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        var out: [UInt8] = []
        encode(bytes, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the Base45 characters for `bytes` to `out`.
    public static func encode(_ bytes: some Collection<UInt8>, into out: inout [UInt8]) {
        out.reserveCapacity(out.count + (bytes.count + 1) / 2 * 3)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            if let second = iterator.next() {
                var n = Int(first) << 8 | Int(second)
                out.append(alphabet[n % 45])
                n /= 45
                out.append(alphabet[n % 45])
                n /= 45
                out.append(alphabet[n])
            } else {
                let n = Int(first)
                out.append(alphabet[n % 45])
                out.append(alphabet[n / 45])
            }
        }
    }

    /// Decodes Base45 text strictly: only the 45 upper-case characters of the alphabet, no length ≡ 1
    /// (mod 3), no three-character chunk above 65535 and no final two-character chunk above 255.
    public static func decode(_ text: some Collection<UInt8>) throws(CardTokenError) -> [UInt8] {
        guard text.count % 3 != 1 else {
            throw CardTokenError(.invalidBase45, "Base45 text of \(text.count) characters cannot be complete (length ≡ 1 mod 3)")
        }
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 3 * 2 + 1)
        var chunk: (Int, Int, Int) = (0, 0, 0)
        var filled = 0
        var offset = 0
        for character in text {
            let value = values[Int(character)]
            guard value != 0xFF else {
                throw CardTokenError(.invalidBase45, "character \(describe(character)) at position \(offset) is not in the Base45 alphabet")
            }
            switch filled {
            case 0: chunk.0 = Int(value)
            case 1: chunk.1 = Int(value)
            default: chunk.2 = Int(value)
            }
            filled += 1
            offset += 1
            if filled == 3 {
                let n = chunk.0 + chunk.1 * 45 + chunk.2 * 2025
                guard n <= 0xFFFF else {
                    throw CardTokenError(.invalidBase45, "the chunk ending at position \(offset - 1) encodes \(n), above 65535")
                }
                out.append(UInt8(n >> 8))
                out.append(UInt8(n & 0xFF))
                filled = 0
            }
        }
        if filled == 2 {
            let n = chunk.0 + chunk.1 * 45
            guard n <= 0xFF else {
                throw CardTokenError(.invalidBase45, "the final pair encodes \(n), above 255")
            }
            out.append(UInt8(n))
        }
        return out
    }

    private static func describe(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "0x\(String(byte, radix: 16))"
    }
}
