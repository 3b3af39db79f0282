import CardCrypto
import HummingbirdTLS
import NIOSSL

/// TLS terminated by the service itself, from PEM files: the certificate chain (the server's certificate
/// first, then any intermediates) and its private key, which group or others must not be able to read.
public struct ServerTLS: Sendable {
    let configuration: TLSConfiguration

    /// Loads and checks both files, so a wrong path, an unreadable key or a key that does not match the
    /// certificate is one clear error at start, not a failed handshake later.
    public init(certificateChainPath: String, privateKeyPath: String) throws(ServerTLSError) {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificateChainPath)
        } catch {
            throw ServerTLSError(
                "cannot load the TLS certificate chain \(certificateChainPath): \(error); it must be PEM, the server's certificate first"
            )
        }
        guard !chain.isEmpty else { throw ServerTLSError("\(certificateChainPath) holds no PEM certificate") }
        let key: NIOSSLPrivateKey
        do {
            try KeyFiles.requireOwnerOnly(privateKeyPath, what: "TLS key")
            key = try NIOSSLPrivateKey(file: privateKeyPath, format: .pem)
        } catch let error as CardCryptoError {
            throw ServerTLSError(error.description)
        } catch {
            throw ServerTLSError("cannot load the TLS key \(privateKeyPath): \(error); it must be an unencrypted PEM private key")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        do {
            _ = try NIOSSLContext(configuration: configuration)
        } catch {
            throw ServerTLSError("the TLS key \(privateKeyPath) does not go with the certificate in \(certificateChainPath) (\(error))")
        }
        self.configuration = configuration
    }
}

/// TLS files the service cannot use.
public struct ServerTLSError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
