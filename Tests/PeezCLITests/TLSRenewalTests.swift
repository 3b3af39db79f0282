import Foundation
import PeezAPI
import TestSupport
import Testing

/// A TLS certificate renewed on disk while the service runs: taken on SIGHUP (`systemctl reload peez`, and
/// within a minute without it), with no restart and no dropped connection; an ended one is said in `/health`.
@Suite("TLS renewal")
struct TLSRenewalTests {
    @Test func aRenewedCertificateServesNewConnectionsWhileOpenOnesKeepTheirs() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let first = try TestCertificates(in: try TemporaryFolder(in: folder, "first"))
        let renewed = try TestCertificates(in: try TemporaryFolder(in: folder, "renewed"))
        // The files the service is given, as certbot's live folder: replaced in place at the renewal.
        let (chain, key) = (folder.file("fullchain.pem"), folder.file("privkey.pem"))
        try FileManager.default.copyItem(atPath: first.serverChain, toPath: chain)
        try FileManager.default.copyItem(atPath: first.serverKey, toPath: key)
        let service = try ServiceProcess(
            arguments: ["--development", "--database", folder.file("ledger.sqlite"), "--tls-certificate", chain, "--tls-key", key],
            port: TestPorts.unused()
        )
        defer { service.killHard() }
        try await service.waitUntilReady()
        let check = try await ProcessRunner.run([
            "python3", repositoryRoot.appendingPathComponent("Tests/Tools/tls-reload-check.py").path, String(service.port),
            String(service.process.processIdentifier), first.rootCertificate, renewed.rootCertificate, renewed.serverChain, renewed.serverKey, chain,
            key,
        ])
        #expect(check.status == 0, "\(check.standardOutput)\(check.standardError)")
        #expect(check.standardOutput.contains("old connection, still open: HTTP/1.1 200"), "\(check.standardOutput)")
        #expect(service.process.isRunning, "no restart")
    }
}
