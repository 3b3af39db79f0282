import CardCrypto
import CardToken
import Foundation
import TestSupport
import Testing

@testable import WalletPass

@Suite("peez wallet check: why a pass would not open")
struct PassCheckTests {
    struct Setup {
        let folder: TemporaryFolder
        let chain: WalletCertificates
        let identity: PassSigningIdentity
        let verifier: CardVerifier
        let pass: MembershipPass
        /// After the certificates were made (their validity starts at the second they were made).
        let now: Int64

        init() throws {
            folder = try TemporaryFolder()
            chain = try WalletCertificates(in: folder)
            now = Int64(Date().timeIntervalSince1970) + 1
            identity = try PassSigningTests.identity(chain)
            let key = try Ed25519PrivateKey.generate()
            verifier = CardVerifier(trustedKeys: TrustedKeySet([key.publicKey]))
            let token = try CardIssuer(signingKey: key).issue(
                CardClaims(subject: "PEEZ-20251103-00001", expiresAt: now + 30 * 86_400, issuedAt: now - 60, name: "Ahmed Mohamed")
            )
            var pass = PassSigningTests.pass
            pass.cardToken = token
            self.pass = pass
        }

        var root: X509Certificate { get throws { try X509Certificate(pem: PassSigningTests.read(chain.root), what: "root") } }

        func failures(_ archive: [UInt8], root: X509Certificate? = nil) throws -> [String] {
            PassCheck(archive, appleRoot: try root ?? self.root, verifier: verifier, now: now).findings.filter { !$0.passed }.map(\.text)
        }

        /// The pass's files, changed by `change`, signed (or not) and zipped again.
        func archive(resign: Bool = true, _ change: (inout [(name: String, bytes: [UInt8])]) -> Void) throws -> [UInt8] {
            var files = try PassPackage.files(of: pass, identity: identity, now: now)
            let manifest = PassPackage.manifest(of: files)
            let signature = try identity.sign(manifest)
            change(&files)
            let newManifest = resign ? PassPackage.manifest(of: files) : manifest
            return try PassPackage.archive(
                files + [("manifest.json", newManifest), ("signature", resign ? try identity.sign(newManifest) : signature)]
            )
        }
    }

    @Test func aPassThePackageBuiltPassesEveryCheckUpToTheRoot() throws {
        let setup = try Setup()
        defer { setup.folder.remove() }
        let report = PassCheck(
            try PassPackage.build(setup.pass, identity: setup.identity, now: setup.now),
            appleRoot: try setup.root,
            verifier: setup.verifier,
            now: setup.now
        )
        #expect(report.passed, "\(report.findings)")
        #expect(report.findings.count >= 20)
        #expect(report.findings.contains { $0.text.contains("the chain goes up to the given root") })
        #expect(report.findings.contains { $0.text.contains("the barcode is a valid card (PEEZ-20251103-00001)") })
    }

    @Test func eachBrokenPartFailsWithALineNamingItsFix() throws {
        let setup = try Setup()
        defer { setup.folder.remove() }

        let edited = try setup.failures(try setup.archive(resign: false) { files in files[0].bytes += Array(" ".utf8) })
        #expect(edited.contains { $0.contains("does not match pass.json: the file changed after signing") }, "\(edited)")

        let noIcon = try setup.failures(try setup.archive { files in files.removeAll { $0.name == "icon.png" } })
        #expect(noIcon.contains { $0.contains("icon.png is missing") }, "\(noIcon)")

        let bigIcon = try setup.failures(
            try setup.archive { files in
                let index = files.firstIndex { $0.name == "icon.png" }!
                files[index].bytes = files.first { $0.name == "icon@2x.png" }!.bytes
            }
        )
        #expect(bigIcon.contains { $0.contains("icon.png is 58 × 58 pixels, not 29 × 29: resize it") }, "\(bigIcon)")

        let otherTeam = try setup.failures(
            try setup.archive { files in
                let json = String(decoding: files[0].bytes, as: UTF8.self).replacingOccurrences(of: "PEEZTEAM42", with: "OTHERTEAM1")
                files[0].bytes = Array(json.utf8)
            }
        )
        #expect(otherTeam.contains { $0.contains("belongs to team PEEZTEAM42 but pass.json says OTHERTEAM1: fix teamIdentifier") }, "\(otherTeam)")

        let notACard = try setup.failures(
            try setup.archive { files in
                let json = String(decoding: files[0].bytes, as: UTF8.self).replacingOccurrences(
                    of: setup.pass.cardToken ?? "",
                    with: "PEEZ1:NOTACARD"
                )
                files[0].bytes = Array(json.utf8)
            }
        )
        #expect(notACard.contains { $0.contains("the barcode is not a valid card for these keys (malformed") }, "\(notACard)")

        // Fields of the wrong type: each check names its own field; the rest of pass.json is still read.
        let wrongTypes = try setup.failures(
            try setup.archive { files in
                let json = String(decoding: files[0].bytes, as: UTF8.self)
                    .replacingOccurrences(of: #""formatVersion":1"#, with: #""formatVersion":"1""#)
                    .replacingOccurrences(of: #""serialNumber":"#, with: #""serialNumber":7,"was":"#)
                files[0].bytes = Array(json.utf8)
            }
        )
        #expect(wrongTypes.contains { $0.contains("formatVersion must be the number 1") }, "\(wrongTypes)")
        #expect(wrongTypes.contains { $0.contains("pass.json lacks serialNumber") }, "\(wrongTypes)")
        #expect(!wrongTypes.contains { $0.contains("not a JSON object") || $0.contains("no barcodes") }, "\(wrongTypes)")

        let strangerRoot = try X509Certificate(pem: PassSigningTests.read(setup.chain.strangerCA), what: "root")
        let unchained = try setup.failures(try PassPackage.build(setup.pass, identity: setup.identity, now: setup.now), root: strangerRoot)
        #expect(unchained.contains { $0.contains("do not chain up to the given root") }, "\(unchained)")

        let garbage = PassCheck(Array("not a zip".utf8), appleRoot: nil, verifier: nil, now: setup.now)
        #expect(!garbage.passed && garbage.findings.first?.text.contains("not a ZIP archive") == true, "\(garbage.findings)")
    }

    @Test func aZipBombOrAPathLeavingTheArchiveIsRefusedBeforeItIsRead() throws {
        let big = try PassPackage.archive([("pass.json", [UInt8](repeating: 0x20, count: PassArchive.maxFileBytes + 1))])
        #expect(big.count < 100_000, "it compresses to little")
        #expect(throws: WalletError(.invalidArchive, "")) { try PassArchive(big) }
        let escaping = try PassPackage.archive([("../../etc/passwd", Array("x".utf8))])
        #expect(throws: WalletError(.invalidArchive, "")) { try PassArchive(escaping) }
    }
}

@Suite("peez wallet check, the command")
struct WalletCheckCommandTests {
    static let peez = Bundle.main.bundleURL.appendingPathComponent("peez").path

    @Test func theCommandPrintsALineACheckAndExitsOneWhenAnyFails() throws {
        let setup = try PassCheckTests.Setup()
        defer { setup.folder.remove() }
        let pem = try (setup.verifier.trustedKeys.keys.first as! Ed25519PublicKey).pemRepresentation()
        try pem.write(toFile: setup.folder.file("card.pub.pem"), atomically: true, encoding: .utf8)
        let good = setup.folder.file("good.pkpass")
        try Data(try PassPackage.build(setup.pass, identity: setup.identity, now: setup.now)).write(to: URL(fileURLWithPath: good))
        let checked = try ProcessRunner.run([
            Self.peez, "wallet", "check", good, "--apple-root", setup.chain.root, "--keys", setup.folder.file("card.pub.pem"),
        ])
        #expect(checked.status == 0, "\(checked.standardOutput)\(checked.standardError)")
        #expect(checked.standardOutput.split(separator: "\n").allSatisfy { $0.hasPrefix("ok    ") }, "\(checked.standardOutput)")

        let bad = setup.folder.file("bad.pkpass")
        try Data(try setup.archive(resign: false) { files in files[0].bytes += Array(" ".utf8) }).write(to: URL(fileURLWithPath: bad))
        let refused = try ProcessRunner.run([Self.peez, "wallet", "check", bad])
        #expect(refused.status == 1, "\(refused.standardOutput)\(refused.standardError)")
        #expect(refused.standardOutput.contains("FAIL  the SHA-1 in manifest.json does not match pass.json"), "\(refused.standardOutput)")
        #expect(refused.standardOutput.contains("give --apple-root") && refused.standardOutput.contains("give --keys"))
        let missing = try ProcessRunner.run([Self.peez, "wallet", "check", setup.folder.file("nothing.pkpass")])
        #expect(missing.status == 2 && missing.standardError.contains("nothing.pkpass"), "\(missing.standardError)")
    }
}
