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
