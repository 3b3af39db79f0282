import CPeezOpenSSL

/// HMAC-SHA256 (RFC 2104) through OpenSSL, as Standard Webhooks signs a delivery.
public enum HMACSHA256 {
    /// The 32-byte authentication code of `message` under `key`.
    public static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var code = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                HMAC(
                    EVP_sha256(),
                    keyBytes.baseAddress,
                    Int32(keyBytes.count),
                    messageBytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                    messageBytes.count,
                    &code,
                    &length
                )
            }
        }
        // HMAC over memory cannot fail short of memory exhaustion.
        precondition(result != nil && length == 32, "HMAC-SHA256 failed: \(OpenSSLErrorQueue.drain())")
        return code
    }
}

extension HMACSHA256 {
    /// Whether `hexCode` (hex digits, either case) is the authentication code of `message` under `key`. The codes
    /// are compared in constant time (OpenSSL's `CRYPTO_memcmp`), so a forger learns nothing from how long a
    /// refusal takes; a code of the wrong length or with a non-hex character is simply not it.
    public static func isCode(hex hexCode: String, of message: [UInt8], key: [UInt8]) -> Bool {
        let expected = authenticationCode(key: key, message: message)
        var given = [UInt8](repeating: 0, count: expected.count)
        let digits = Array(hexCode.utf8)
        guard digits.count == expected.count * 2 else { return false }
        var valid = true
        for index in given.indices {
            guard let high = hexValue(digits[2 * index]), let low = hexValue(digits[2 * index + 1]) else {
                valid = false
                continue
            }
            given[index] = high << 4 | low
        }
        let same = CRYPTO_memcmp(expected, given, expected.count) == 0
        return valid && same
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
