/// A strict JSON parser (RFC 8259) for request bodies: one pass over the bytes, bounded nesting, and an object
/// that names a member twice refused rather than read as its last value (two readers of one document must never
/// disagree about what it says).
struct JSONParser {
    /// How deeply arrays and objects may nest: far beyond any request body, well within the stack.
    static let maxDepth = 64

    private let bytes: [UInt8]
    private var index = 0

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// `bytes` as one JSON value (any value at the top, white space around it).
    static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw .malformed("text after the value, at byte \(parser.index)") }
        return value
    }

    private mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
        guard let byte = peek() else { throw .malformed("the body ends where a value was expected") }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw .malformed("unexpected byte \(byte) at byte \(index)")
        }
    }

    private mutating func object(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= Self.maxDepth else { throw .malformed("nested more than \(Self.maxDepth) levels deep") }
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw .malformed("a member name was expected at byte \(index)") }
            let name = try string()
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            let member = try value(depth: depth)
            guard members.updateValue(member, forKey: name) == nil else { throw .duplicateMember(name) }
            skipWhitespace()
            if peek() == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect(UInt8(ascii: "}"))
            return .object(members)
        }
    }

    private mutating func array(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= Self.maxDepth else { throw .malformed("nested more than \(Self.maxDepth) levels deep") }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth))
            skipWhitespace()
            if peek() == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect(UInt8(ascii: "]"))
            return .array(elements)
        }
    }

    /// A string: UTF-8 checked, escapes decoded (a `\u` surrogate only as a whole pair), no raw control bytes.
    private mutating func string() throws(JSONParseError) -> String {
        index += 1
        var utf8: [UInt8] = []
        while true {
            guard let byte = peek() else { throw .malformed("a string is not closed") }
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: utf8, as: UTF8.self) else { throw .malformed("a string is not valid UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                guard let escape = peek() else { throw .malformed("a string is not closed") }
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"): utf8 += try unicodeEscape()
                default: throw .malformed("unknown escape at byte \(index - 1)")
                }
            case 0x00..<0x20:
                throw .malformed("a control character inside a string at byte \(index - 1)")
            default:
                utf8.append(byte)
            }
        }
    }

    /// The scalar of a `\uXXXX` escape (the `u` read), as UTF-8; a high surrogate must be followed by a low one.
    private mutating func unicodeEscape() throws(JSONParseError) -> [UInt8] {
        var scalar = try hexQuad()
        if (0xD800...0xDBFF).contains(scalar) {
            guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw .malformed("a lone surrogate escape at byte \(index)")
            }
            index += 2
            let low = try hexQuad()
            guard (0xDC00...0xDFFF).contains(low) else { throw .malformed("a lone surrogate escape at byte \(index)") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(scalar) {
            throw .malformed("a lone surrogate escape at byte \(index)")
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw .malformed("an escape that is no character at byte \(index)") }
        return Array(String(Character(unicode)).utf8)
    }

    private mutating func hexQuad() throws(JSONParseError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw .malformed("a short \\u escape at byte \(index)") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw .malformed("a \\u escape with a byte that is not hexadecimal at byte \(index)")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// A number: an integer literal within 64 bits is kept as one; anything else as a double.
    private mutating func number() throws(JSONParseError) -> JSONValue {
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), isDigit(first) else { throw .malformed("a number without digits at byte \(start)") }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        var integral = true
        if peek() == UInt8(ascii: ".") {
            integral = false
            index += 1
            guard let digit = peek(), isDigit(digit) else { throw .malformed("a fraction without digits at byte \(index)") }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            integral = false
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard let digit = peek(), isDigit(digit) else { throw .malformed("an exponent without digits at byte \(index)") }
            skipDigits()
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if integral, let integer = Int64(text) { return .integer(integer) }
        guard let double = Double(text), double.isFinite else { throw .malformed("a number out of range at byte \(start)") }
        return .number(double)
    }

    private mutating func literal(_ word: StaticString) throws(JSONParseError) {
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard bytes.count - index >= expected.count, bytes[index..<index + expected.count].elementsEqual(expected) else {
            throw .malformed("unexpected text at byte \(index)")
        }
        index += expected.count
    }

    private mutating func expect(_ byte: UInt8) throws(JSONParseError) {
        guard peek() == byte else { throw .malformed("expected '\(Character(Unicode.Scalar(byte)))' at byte \(index)") }
        index += 1
    }

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }
    private func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private mutating func skipDigits() {
        while let byte = peek(), isDigit(byte) { index += 1 }
    }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }
}

/// Why bytes are not a JSON document the API reads.
public enum JSONParseError: Error, Hashable, CustomStringConvertible {
    /// Not JSON, with what is wrong and where.
    case malformed(String)
    /// An object names this member more than once.
    case duplicateMember(String)

    public var description: String {
        switch self {
        case .malformed(let reason): return "not JSON: \(reason)"
        case .duplicateMember(let name): return "the member \"\(name)\" appears more than once in one object"
        }
    }
}
