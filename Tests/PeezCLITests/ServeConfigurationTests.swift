import Foundation
import TestSupport
import Testing

/// `peez serve`'s configuration: one order of precedence for every setting (a flag, then the environment, then the
/// `--config` file, then the default), printed back by `--print-config` with where each came from and secrets
/// masked, and one error shape for a bad value.
@Suite("peez serve's configuration")
struct ServeConfigurationTests {
    static let keys = [
        "--signing-key", repositoryRoot.appendingPathComponent("Keys/development/signing-key.pem").path,
        "--published-keys", repositoryRoot.appendingPathComponent("Keys/public").path,
    ]

    @Test func aFlagWinsOverTheEnvironmentWhichWinsOverTheFileWhichWinsOverTheDefault() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = folder.file("peez.env")
        try """
        # as /etc/peez/peez.env
        PEEZ_PORT=9100
        PEEZ_HOST=0.0.0.0
        export PEEZ_PUBLIC_URL="https://cards.peez.dz"
        PEEZ_DATABASE_URL=postgres://peez:hunter2@db:5432/peez

        """.write(toFile: file, atomically: true, encoding: .utf8)
        let printed = try await ProcessRunner.run(
            [
                "PEEZ_PORT=9200", "PEEZ_HOST=10.0.0.1", "PEEZ_WEBHOOK_SECRETS=whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=", "PEEZ_REMIND_AT=02:00",
                PeezCommand.binary,
            ]
                + ["serve", "--development", "--config", file, "--port", "9300", "--print-config"] + Self.keys
        )
        #expect(printed.status == 0, "\(printed.standardError)")
        let lines = printed.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("PEEZ_PORT=9300  (flag)"), "a flag wins: \(lines)")
        #expect(lines.contains("PEEZ_HOST=10.0.0.1  (environment)"), "the environment wins over the file")
        #expect(lines.contains("PEEZ_PUBLIC_URL=https://cards.peez.dz  (config file)"), "the file, quotes and export read as the shell does")
        #expect(lines.contains("PEEZ_DRAIN_TIMEOUT=10  (default)") && lines.contains("PEEZ_TLS_KEY=  (not set)"))
        #expect(lines.contains("PEEZ_DATABASE_URL=postgres://peez:masked@db:5432/peez  (config file)"), "a URL's password is masked")
        #expect(!printed.standardOutput.contains("hunter2") && !printed.standardOutput.contains("c2VjcmV0"), "no secret is printed")
        #expect(printed.standardOutput.contains("PEEZ_WEBHOOK_SECRETS=whse…(masked)  (environment)"))
    }

    @Test func aBadValueIsNamedWithWhereItCameFrom() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let port = try await ProcessRunner.run(["PEEZ_PORT=99999", PeezCommand.binary, "serve", "--development", "--print-config"] + Self.keys)
        #expect(port.status != 0 && port.standardError.contains("PEEZ_PORT (from the environment) must be a whole number from 1 to 65535, not 99999"))
        let file = folder.file("bad.env")
        try "PEEZ_PORT=9100\nthis is not a setting\n".write(toFile: file, atomically: true, encoding: .utf8)
        let line = try await ProcessRunner.run([PeezCommand.binary, "serve", "--development", "--config", file, "--print-config"] + Self.keys)
        #expect(line.status != 0 && line.standardError.contains("bad.env:2: not a setting"), "\(line.standardError)")
        let url = try await ProcessRunner.run(
            ["PEEZ_PUBLIC_URL=ftp://x", PeezCommand.binary, "serve", "--development", "--print-config"] + Self.keys
        )
        #expect(url.standardError.contains("PEEZ_PUBLIC_URL (from the environment) must be an address like https://cards.peez.dz, not ftp://x"))
    }
}
