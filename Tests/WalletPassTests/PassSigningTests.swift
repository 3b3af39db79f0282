import Foundation
import TestSupport
import Testing
import WalletPass

@Suite("Apple Wallet passes: the signing identity and the .pkpass")
struct PassSigningTests {
    static func read(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    static func identity(
        _ chain: WalletCertificates,
        passType: String = WalletCertificates.passTypeIdentifier,
        team: String = WalletCertificates.teamIdentifier,
        wwdr: String? = nil,
        now: Int64 = Int64(Date().timeIntervalSince1970)
    ) throws -> PassSigningIdentity {
        try PassSigningIdentity(
            certificatePEM: read(chain.certificate),
            keyPEM: read(chain.key),
            intermediatePEM: read(wwdr ?? chain.intermediate),
            passTypeIdentifier: passType,
            teamIdentifier: team,
            now: now
        )
    }

    static let pass = MembershipPass(
        serialNumber: "00000000-0000-4000-8000-000000000001",
        memberName: "Ahmed Mohamed",
        membershipID: "PEEZ-20251103-00001",
        cardToken: "PEEZ1:RRQT 9P60GO0/%8X$351HB9P8CK*AE",
        coverageEnd: 1_798_758_000,
        voided: false,
        authenticationToken: "a-random-token-of-32-characters-",
        webServiceURL: "https://cards.peez.dz/wallet"
    )

    @Test func anInconsistentIdentityIsRefusedWithOneSentenceNamingTheSettingToFix() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let chain = try WalletCertificates(in: folder)
        #expect(try Self.identity(chain).passTypeIdentifier == WalletCertificates.passTypeIdentifier)

        func refusal(_ make: () throws -> PassSigningIdentity) -> String {
            do {
                _ = try make()
                return "accepted"
            } catch {
                return "\(error)"
            }
        }
        let wrongType = refusal { try Self.identity(chain, passType: "pass.dz.peez.other") }
        #expect(wrongType.contains("is for pass type pass.dz.peez.test (its UID), not PEEZ_WALLET_PASS_TYPE_ID pass.dz.peez.other"), "\(wrongType)")
        let wrongTeam = refusal { try Self.identity(chain, team: "OTHERTEAM1") }
        #expect(wrongTeam.contains("belongs to team PEEZTEAM42 (its OU), not PEEZ_WALLET_TEAM_ID OTHERTEAM1"), "\(wrongTeam)")
        let wrongWWDR = refusal { try Self.identity(chain, wwdr: chain.strangerCA) }
        #expect(wrongWWDR.contains("PEEZ_WALLET_WWDR") && wrongWWDR.contains("did not issue PEEZ_WALLET_CERTIFICATE"), "\(wrongWWDR)")
        let later = refusal { try Self.identity(chain, now: Int64(Date().timeIntervalSince1970) + 30 * 86_400) }
        #expect(later.contains("PEEZ_WALLET_CERTIFICATE is valid only from") && later.contains("renew it"), "\(later)")
        let otherKey = try WalletCertificates(in: try TemporaryFolder())
        let mismatched = refusal {
            try PassSigningIdentity(
                certificatePEM: Self.read(chain.certificate),
                keyPEM: Self.read(otherKey.key),
                intermediatePEM: Self.read(chain.intermediate),
                passTypeIdentifier: WalletCertificates.passTypeIdentifier,
                teamIdentifier: WalletCertificates.teamIdentifier,
                now: Int64(Date().timeIntervalSince1970)
            )
        }
        #expect(mismatched.contains("PEEZ_WALLET_KEY is not the private key of PEEZ_WALLET_CERTIFICATE"), "\(mismatched)")
        let notPEM = refusal {
            try PassSigningIdentity(
                certificatePEM: Array("hello".utf8),
                keyPEM: Self.read(chain.key),
                intermediatePEM: Self.read(chain.intermediate),
                passTypeIdentifier: WalletCertificates.passTypeIdentifier,
                teamIdentifier: WalletCertificates.teamIdentifier,
                now: 0
            )
        }
        #expect(notPEM.contains("PEEZ_WALLET_CERTIFICATE is neither a PEM certificate"), "\(notPEM)")
    }

    @Test func theDERCertificateAppleHandsOutIsTakenAsItIs() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let chain = try WalletCertificates(in: folder)
        let der = folder.file("pass.cer")
        let converted = try ProcessRunner.run(["openssl", "x509", "-in", chain.certificate, "-outform", "DER", "-out", der])
        #expect(converted.status == 0, "\(converted.standardError)")
        let fromDER = try X509Certificate(pem: Self.read(der), what: "pass.cer")
        let fromPEM = try X509Certificate(pem: Self.read(chain.certificate), what: "pass.pem")
        #expect(fromDER.subjectLine == fromPEM.subjectLine && fromDER.userID == WalletCertificates.passTypeIdentifier)
    }

    @Test func aPassUnzipsToItsFilesWhoseManifestAndSignatureOpenSSLChecksUpToTheRoot() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let chain = try WalletCertificates(in: folder)
        let archive = try PassPackage.build(Self.pass, identity: try Self.identity(chain), now: 1_795_000_000)
        try Data(archive).write(to: URL(fileURLWithPath: folder.file("card.pkpass")))
        let unzipped = try ProcessRunner.run(["unzip", "-q", folder.file("card.pkpass"), "-d", folder.file("pass")])
        #expect(unzipped.status == 0, "\(unzipped.standardError)")
        let listed = try ProcessRunner.run(["bash", "-c", "cd '\(folder.file("pass"))' && find . -type f | sort"]).standardOutput
        #expect(
            listed.split(separator: "\n").map { String($0.dropFirst(2)) } == [
                "ar.lproj/pass.strings", "en.lproj/pass.strings", "fr.lproj/pass.strings", "icon.png", "icon@2x.png", "icon@3x.png", "logo.png",
                "logo@2x.png", "logo@3x.png", "manifest.json", "pass.json", "signature",
            ],
            "\(listed)"
        )

        // Every file but the two is in the manifest with its SHA-1, as openssl computes it.
        let manifest = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.file("pass/manifest.json")))) as? [String: String]
        )
        #expect(manifest.count == 10)
        for (name, hash) in manifest {
            let sha1 = try ProcessRunner.run(["openssl", "dgst", "-sha1", "-r", folder.file("pass/" + name)]).standardOutput
            #expect(sha1.hasPrefix(hash + " "), "\(name)")
        }

        // The detached signature verifies over the manifest, through the WWDR it carries, up to the root.
        let verified = try ProcessRunner.run([
            "openssl", "cms", "-verify", "-binary", "-inform", "DER", "-in", folder.file("pass/signature"), "-content",
            folder.file("pass/manifest.json"),
            "-CAfile", chain.root, "-purpose", "any", "-out", "/dev/null",
        ])
        #expect(verified.status == 0, "\(verified.standardError)")
        let carried = try ProcessRunner.run(["openssl", "pkcs7", "-inform", "DER", "-in", folder.file("pass/signature"), "-print_certs", "-noout"])
        #expect(
            carried.standardOutput.contains("Pass Type ID: pass.dz.peez.test") && carried.standardOutput.contains("Worldwide Developer Relations")
        )
        let tampered = try ProcessRunner.run([
            "bash", "-c",
            "cd '\(folder.path)' && sed 's/\"pass.json\":\"./\"pass.json\":\"0/' pass/manifest.json > forged.json && openssl cms -verify -binary -inform DER -in pass/signature -content forged.json -CAfile '\(chain.root)' -purpose any -out /dev/null",
        ])
        #expect(tampered.status != 0, "a changed manifest no longer verifies")

        // pass.json as Wallet reads it.
        let json = try #require(
            // The wire itself: the pass.json Wallet reads, unzipped by unzip(1).
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.file("pass/pass.json")))) as? [String: Any]
        )
        #expect(
            json["passTypeIdentifier"] as? String == WalletCertificates.passTypeIdentifier
                && json["teamIdentifier"] as? String == WalletCertificates.teamIdentifier
        )
        #expect(json["serialNumber"] as? String == Self.pass.serialNumber && json["formatVersion"] as? Int == 1 && json["voided"] as? Bool == false)
        #expect(json["expirationDate"] as? String == "2027-01-01T00:00:00+01:00")
        let barcode = try #require((json["barcodes"] as? [[String: Any]])?.first)
        #expect(barcode["format"] as? String == "PKBarcodeFormatQR" && barcode["message"] as? String == Self.pass.cardToken)
        #expect(
            json["authenticationToken"] as? String == Self.pass.authenticationToken && json["webServiceURL"] as? String == Self.pass.webServiceURL
        )

        // The strings: UTF-16 with a byte order mark, in each language.
        let french = try Data(contentsOf: URL(fileURLWithPath: folder.file("pass/fr.lproj/pass.strings")))
        #expect(french.starts(with: [0xFF, 0xFE]))
        let text = try #require(String(data: french, encoding: .utf16))
        #expect(text.contains("\"PAID_UNTIL\" = \"Payé jusqu'au\";"), "\(text)")
        let arabic = try #require(
            String(data: try Data(contentsOf: URL(fileURLWithPath: folder.file("pass/ar.lproj/pass.strings"))), encoding: .utf16)
        )
        #expect(arabic.contains("\"MEMBER\" = \"العضو\";"))

        // The images at the sizes Wallet asks: the icon 29 points, the logo at most 160 x 50, at 1x, 2x and 3x.
        for (name, width, height) in [("icon", 29, 29), ("logo", 160, 50)] {
            for scale in 1...3 {
                let file = folder.file("pass/\(name)\(scale == 1 ? "" : "@\(scale)x").png")
                let header = Array(try Data(contentsOf: URL(fileURLWithPath: file)).prefix(24))
                let size = (header[16..<20].reduce(0) { $0 << 8 | Int($1) }, header[20..<24].reduce(0) { $0 << 8 | Int($1) })
                #expect(size == (width * scale, height * scale), "\(file)")
            }
        }
    }
}
