import CPeezOpenSSL

/// SHA-256 through OpenSSL's EVP digest API.
public enum SHA256 {
    /// The 32-byte SHA-256 digest of `bytes`.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &digest, &length, EVP_sha256(), nil)
        }
        // EVP_Digest with SHA-256 on memory cannot fail short of memory exhaustion.
        precondition(ok == 1 && length == 32, "SHA-256 failed: \(OpenSSLErrorQueue.drain())")
        return digest
    }
}
