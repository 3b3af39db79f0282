import CardCrypto
import Foundation
import PeezAPI
import TestSupport
import Testing

/// Every command reads the settings the unit runs with: its flags, the environment, then the same configuration
/// file (`--config`, `PEEZ_CONFIG`, `/etc/peez/peez.env`); links never silently name loopback; every block the
/// README offers for pasting into the file is read as pasted.
@Suite("One configuration for every command")
struct OneConfigurationTests {
    /// A configuration file as an operator writes it, naming a ledger in `folder`.
    static func configuration(_ folder: TemporaryFolder, _ lines: [String]) throws -> String {
        let file = folder.file("peez.env")
        try (["# as /etc/peez/peez.env", "PEEZ_DATABASE=\(folder.file("ledger.sqlite"))"] + lines).joined(separator: "\n")
            .write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test func adminCommandsWorkOnTheLedgerTheConfigurationFileNames() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try Self.configuration(folder, ["PEEZ_PUBLIC_URL=https://cards.peez.example"])
        let created = try await PeezCommand.run(["admin", "create-token", "--config", file, "--create-database"])
        #expect(created.status == 0, "\(created.standardError)")
        #expect(FileManager.default.fileExists(atPath: folder.file("ledger.sqlite")), "the ledger the file names, not var/peez.sqlite")
        // The same file through PEEZ_CONFIG, as an operator's shell would have it.
        let vendors = try await ProcessRunner.run(["PEEZ_CONFIG=\(file)", PeezCommand.binary, "admin", "credentials"])
        #expect(vendors.status == 0 && vendors.standardOutput.contains("admin"), "\(vendors.standardOutput)\(vendors.standardError)")
        let link = try await PeezCommand.run(["admin", "console-link", "--config", file, "--name", "Amina"])
        #expect(link.status == 0 && link.standardOutput.hasPrefix("https://cards.peez.example/console/#signin="), "\(link.standardOutput)")
        let printed = try await ProcessRunner.run(
            ["PEEZ_CONFIG=\(file)", PeezCommand.binary, "serve", "--signing-key", try Self.key(folder), "--print-config"]
        )
        #expect(printed.standardOutput.contains("PEEZ_DATABASE=\(folder.file("ledger.sqlite"))  (config file)"), "\(printed.standardOutput)")
    }

    @Test func aLinkOnLoopbackIsWarnedAboutAndOneOnAWildcardAddressRefused() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let loopback = try Self.configuration(folder, [])
        _ = try await PeezCommand.run(["admin", "create-token", "--config", loopback, "--create-database"])
        let warned = try await PeezCommand.run(["admin", "console-link", "--config", loopback, "--name", "Amina"])
        #expect(warned.status == 0 && warned.standardOutput.hasPrefix("http://127.0.0.1:8080/console/"))
        #expect(warned.standardError.contains("warning: PEEZ_PUBLIC_URL is not set: this link names http://127.0.0.1:8080, a loopback address"))
        let wildcard = try Self.configuration(folder, ["PEEZ_HOST=0.0.0.0", "PEEZ_PORT=9443"])
        let refused = try await PeezCommand.run(["admin", "console-link", "--config", wildcard, "--name", "Amina"])
        #expect(refused.status != 0 && refused.standardError.contains("PEEZ_PUBLIC_URL is not set and the service listens on every address"))
    }

    @Test func everyBlockTheReadmeOffersForTheConfigurationFileIsReadAsPasted() async throws {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        var blocks: [String] = []
        var current: [String]?
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                if let block = current, block.first?.hasPrefix("# /etc/peez/peez.env") == true { blocks.append(block.joined(separator: "\n")) }
                current = current == nil ? [] : nil
            } else if current != nil {
                current?.append(String(line))
            }
        }
        // The package's own file, every commented setting uncommented as an operator fills it in (but the files
        // this machine does not have: keys, certificates).
        let template = try String(contentsOf: repositoryRoot.appendingPathComponent("dist/systemd/peez.env"), encoding: .utf8)
        let files = ["PEEZ_SIGNING_KEY", "PEEZ_PUBLISHED_KEYS", "PEEZ_TLS_CERTIFICATE", "PEEZ_TLS_KEY"]
        blocks.append(
            template.split(separator: "\n").compactMap { line in
                if files.contains(where: { line.hasPrefix($0) || line.hasPrefix("#" + $0) }) { return nil }
                return line.hasPrefix("#PEEZ_") ? String(line.dropFirst()) : String(line)
            }.joined(separator: "\n")
        )
        #expect(blocks.count >= 2, "the README's Wallet block and the package's file")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for (index, block) in blocks.enumerated() {
            let file = folder.file("block-\(index).env")
            try block.write(toFile: file, atomically: true, encoding: .utf8)
            let printed = try await PeezCommand.run(["serve", "--development", "--config", file, "--print-config"])
            #expect(printed.status == 0, "block \(index) is not read as pasted: \(printed.standardError)")
            let names = block.split(separator: "\n").filter { $0.hasPrefix("PEEZ_") }.map { String($0.prefix { $0 != "=" }) }
            for name in names {
                let line = printed.standardOutput.split(separator: "\n").first { $0.hasPrefix("\(name)=") } ?? ""
                #expect(line.hasSuffix("(config file)"), "block \(index): \(name) is not read from the file: '\(line)'")
            }
        }
    }

    /// A signing key of the test's own.
    static func key(_ folder: TemporaryFolder) throws -> String {
        try KeyFiles.writeKeyPair(try Ed25519PrivateKey.generate(), directory: folder.path).privateKeyPath
    }
}

extension OneConfigurationTests {
    @Test func aConsoleLinksNameFollowsTheTextRuleOfEveryPersonGivenString() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try Self.configuration(folder, ["PEEZ_PUBLIC_URL=https://cards.peez.example"])
        _ = try await PeezCommand.run(["admin", "create-token", "--config", file, "--create-database"])
        for hostile in ["Amina\u{1B}[2J", "Amina\rops", "Amina\u{202E}"] {
            let refused = try await PeezCommand.run(["admin", "console-link", "--config", file, "--name", hostile])
            #expect(refused.status != 0 && refused.standardError.contains("must not contain control or bidirectional override characters"))
        }
    }
}
