import Foundation

/// A stand-in for Apple's push service (Tests/Tools/apns-server.py: HTTP/2 over TLS from a test CA, checking the
/// provider token's ES256 signature and claims), running until ``stop()``; its provider key made with openssl.
public struct APNsStandIn: Sendable {
    public static let keyID = "APNSKEY123"

    public let pid: String
    public let url: String
    /// The CA the server's certificate chains to.
    public let certificateAuthority: String
    /// The provider key (.p8, mode 0600) whose public half the server trusts.
    public let keyPath: String
    public let log: String

    /// With `clientCA` (PEM), connections must present a client certificate issued under it (certificate-based
    /// provider authentication).
    public init(folder: TemporaryFolder, topic: String, teamID: String, clientCA: String? = nil) throws {
        let python = try PythonTool.python(packages: ["hypercorn==0.18.0", "cryptography"], name: "apns-venv")
        let tls = try TestCertificates(in: folder)
        let keyMade = try ProcessRunner.run([
            "bash", "-c",
            "cd '\(folder.path)' && openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out apns.p8 && chmod 600 apns.p8 && openssl pkey -in apns.p8 -pubout -out apns.pub",
        ])
        guard keyMade.status == 0 else { throw PythonToolError(message: keyMade.standardError) }
        keyPath = folder.file("apns.p8")
        let port = TestPorts.unused()
        log = folder.file("apns.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
            "Tools/apns-server.py"
        ).path
        let arguments =
            [python, script, String(port), tls.serverChain, tls.serverKey, folder.file("apns.pub"), Self.keyID, teamID, topic, log]
            + (clientCA.map { [$0] } ?? [])
        let started = try BackgroundServer.start(arguments, port: port, output: folder.file("apns.out"))
        pid = started
        url = "https://localhost:\(port)"
        certificateAuthority = tls.rootCertificate
    }

    /// The requests it answered, in order.
    // The wire itself: the requests the stand-in received, each as its log line holds it.
    public var requests: [[String: Any]] { BackgroundServer.requests(in: log) }

    public func stop() {
        _ = try? ProcessRunner.run(["kill", "-9", "--", "-" + pid])
    }
}

/// A test server started in the background and left running (until killed by its pid).
public enum BackgroundServer {
    /// Starts `arguments` (the program first) through Python's subprocess, which closes every inherited
    /// descriptor (Foundation would wait for a pipe the server held), its output to `output`; waits until
    /// `port` accepts connections (a minute at most, less if the server exits). Returns the server's pid.
    public static func start(_ arguments: [String], port: Int, output: String) throws -> String {
        let launcher = """
            import json, socket, subprocess, sys, time
            arguments, output, port = json.loads(sys.argv[1]), sys.argv[2], int(sys.argv[3])
            server = subprocess.Popen(arguments, stdin=subprocess.DEVNULL, stdout=open(output, "w"), stderr=subprocess.STDOUT,
                                      start_new_session=True, close_fds=True)
            print(server.pid, flush=True)
            # A loaded machine (a whole test suite on two cores) may take many seconds to start Python and its imports.
            for _ in range(600):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    sys.exit(0)
                except OSError:
                    if server.poll() is not None:
                        sys.exit(1)
                    time.sleep(0.1)
            sys.exit(1)
            """
        let encoded = String(decoding: try JSONSerialization.data(withJSONObject: arguments), as: UTF8.self)
        let started = try ProcessRunner.run(["python3", "-c", launcher, encoded, output, String(port)])
        guard started.status == 0 else {
            throw PythonToolError(message: "\(arguments.prefix(2)) did not start: \((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")")
        }
        return started.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The JSON lines a stand-in logged, in order.
    // The wire itself: the stand-in's JSON log lines, written by its Python.
    public static func requests(in log: String) -> [[String: Any]] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }
}
