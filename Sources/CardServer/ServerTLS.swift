import CardCrypto
import Foundation
import NIOSSL
import Synchronization

/// TLS terminated by the service itself, from PEM files: the certificate chain (the server's certificate
/// first, then any intermediates) and its private key, which group or others must not be able to read.
///
/// A certificate renewed on disk is taken without a restart: ``reloadIfChanged()`` (run every minute by
/// ``TLSReloadService``) reads the files again once they changed, and new connections are served with the new
/// certificate while those already open keep theirs. Files that cannot be used leave the certificate in use.
public final class ServerTLS: Sendable {
    public let certificateChainPath: String
    public let privateKeyPath: String

    private struct Loaded {
        var context: NIOSSLContext
        var notAfter: Int64
        var stamp: [FileStamp]
    }

    /// What identifies a version of a file on disk: its size and modification time.
    private struct FileStamp: Equatable {
        var size: Int64
        var modified: Double
    }

    private let loaded: Mutex<Loaded>

    /// Loads and checks both files, so a wrong path, an unreadable key or a key that does not match the
    /// certificate is one clear error at start, not a failed handshake later.
    public init(certificateChainPath: String, privateKeyPath: String) throws(ServerTLSError) {
        self.certificateChainPath = certificateChainPath
        self.privateKeyPath = privateKeyPath
        loaded = Mutex(try Self.load(certificateChainPath, privateKeyPath))
    }

    /// The context new connections are served with.
    var context: NIOSSLContext { loaded.withLock { $0.context } }

    /// The last second the server's certificate in use is valid.
    public var notAfter: Int64 { loaded.withLock { $0.notAfter } }

    /// What a reload came to.
    public enum ReloadOutcome: Sendable, Equatable {
        /// The files did not change.
        case unchanged
        /// New files were loaded; new connections get them.
        case reloaded
        /// The files changed but cannot be used; the certificate loaded before stays in use.
        case failed(String)
    }

    /// Reads the files again if they changed since they were loaded.
    public func reloadIfChanged() -> ReloadOutcome {
        let stamp = Self.stamps(certificateChainPath, privateKeyPath)
        guard stamp != loaded.withLock({ $0.stamp }) else { return .unchanged }
        do {
            let next = try Self.load(certificateChainPath, privateKeyPath)
            loaded.withLock { $0 = next }
            return .reloaded
        } catch {
            // Half-written files (a renewal under way) are tried again at the next change.
            loaded.withLock { $0.stamp = stamp }
            return .failed(error.description)
        }
    }

    private static func stamps(_ paths: String...) -> [FileStamp] {
        paths.map { path in
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return FileStamp(size: -1, modified: 0) }
            return FileStamp(
                size: (attributes[.size] as? NSNumber)?.int64Value ?? -1,
                modified: (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            )
        }
    }

    private static func load(_ certificateChainPath: String, _ privateKeyPath: String) throws(ServerTLSError) -> Loaded {
        let stamp = stamps(certificateChainPath, privateKeyPath)
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificateChainPath)
        } catch {
            throw ServerTLSError(
                "cannot load the TLS certificate chain \(certificateChainPath): \(error); it must be PEM, the server's certificate first"
            )
        }
        guard let leaf = chain.first else { throw ServerTLSError("\(certificateChainPath) holds no PEM certificate") }
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
            return Loaded(context: try NIOSSLContext(configuration: configuration), notAfter: Int64(leaf.notValidAfter), stamp: stamp)
        } catch {
            throw ServerTLSError("the TLS key \(privateKeyPath) does not go with the certificate in \(certificateChainPath) (\(error))")
        }
    }
}

/// TLS files the service cannot use.
public struct ServerTLSError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
