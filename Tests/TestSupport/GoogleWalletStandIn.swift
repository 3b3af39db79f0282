import Foundation

/// A stand-in for Google's OAuth 2.0 token endpoint and Wallet API (Tests/Tools/google-wallet-server.py: the
/// JWT-bearer grant, generic objects patched, inserted and read, save links opened), on plain HTTP on loopback,
/// running until ``stop()``; the service account's key made with openssl.
public struct GoogleWalletStandIn: Sendable {
    public static let email = "peez-wallet@peez-test.iam.gserviceaccount.com"
    public static let issuerID = "3388000000022222222"

    public let pid: String
    public let port: Int
    /// The service account's key file (mode 0600), as Google issues it, its token endpoint the stand-in's.
    public let keyFile: String
    public let log: String
    /// The Wallet API's URL (`PEEZ_GOOGLE_WALLET_API_URL`).
    public var apiURL: String { "http://127.0.0.1:\(port)" }

    /// Starts the stand-in holding no object.
    public init(folder: TemporaryFolder) throws {
        port = TestPorts.unused()
        keyFile = try Self.serviceAccount(in: folder, port: port)
        log = folder.file("google.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let python = try PythonTool.python(packages: ["hypercorn==0.18.0", "cryptography"], name: "apns-venv")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
            "Tools/google-wallet-server.py"
        ).path
        pid = try BackgroundServer.start(
            [python, script, String(port), folder.file("sa.pub"), Self.email, "none", log],
            port: port,
            output: folder.file("google.out")
        )
    }

    /// Makes a service account's RSA key in `folder` (`sa.pem`, its public half `sa.pub`) and its key file
    /// (`service-account.json`, mode 0600) pointing at a token endpoint on `port`; returns the key file's path.
    public static func serviceAccount(in folder: TemporaryFolder, port: Int) throws -> String {
        let made = try ProcessRunner.run([
            "bash", "-c",
            "cd '\(folder.path)' && openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out sa.pem && openssl pkey -in sa.pem -pubout -out sa.pub",
        ])
        guard made.status == 0 else { throw PythonToolError(message: made.standardError) }
        // The wire itself: a service account key file as Google issues it.
        let key: [String: Any] = [
            "type": "service_account", "client_email": email, "private_key": try String(contentsOfFile: folder.file("sa.pem"), encoding: .utf8),
            "token_uri": "http://127.0.0.1:\(port)/token",
        ]
        let path = folder.file("service-account.json")
        try JSONSerialization.data(withJSONObject: key).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        return path
    }

    /// The requests it answered, in order, each as its log line holds it.
    public var requests: [[String: Any]] { BackgroundServer.requests(in: log) }

    public func stop() {
        _ = try? ProcessRunner.run(["kill", "-9", "--", "-" + pid])
    }
}
