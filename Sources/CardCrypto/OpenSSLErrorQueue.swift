import CPeezOpenSSL

/// OpenSSL's thread-local error queue.
public enum OpenSSLErrorQueue {
    /// Empties the queue and returns its messages joined, or a fallback when it was empty.
    public static func drain() -> String {
        var messages: [String] = []
        var buffer = [CChar](repeating: 0, count: 256)
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.isEmpty ? "no detail from OpenSSL" : messages.joined(separator: "; ")
    }

    /// A ``CardCryptoError`` for a failed OpenSSL call, carrying the queue's messages.
    static func failure(_ what: String, code: CardCryptoError.Code = .openSSLFailure) -> CardCryptoError {
        CardCryptoError(code, "\(what): \(drain())")
    }
}
