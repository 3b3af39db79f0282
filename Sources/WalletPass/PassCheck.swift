import CPeezOpenSSL
import CardCrypto
public import CardToken
import Foundation

/// The checks people otherwise paste a pass into a website for when it will not open: the manifest's hashes,
/// the signature, its chain, the WWDR intermediate, the pass type and team against the certificate, the
/// images, the keys Wallet requires, and the barcode as a card. Each finding is one line; a failure names the fix.
public struct PassCheck: Sendable {
    /// One line of the report.
    public struct Finding: Sendable, Hashable, CustomStringConvertible {
        public var passed: Bool
        public var text: String
        public var description: String { (passed ? "ok    " : "FAIL  ") + text }
    }

    public private(set) var findings: [Finding] = []
    /// Whether every check passed.
    public var passed: Bool { findings.allSatisfy(\.passed) }

    private mutating func check(_ passed: Bool, _ ok: @autoclosure () -> String, _ failure: @autoclosure () -> String) {
        findings.append(Finding(passed: passed, text: passed ? ok() : failure()))
    }

    /// Checks `bytes`, a `.pkpass`, at `now`: the chain up to `appleRoot` when given, the barcode against
    /// `trustedKeys` (and `revocations`) with `verifier`'s rules.
    public init(_ bytes: [UInt8], appleRoot: X509Certificate?, verifier: CardVerifier?, now: Int64) {
        let archive: PassArchive
        do {
            archive = try PassArchive(bytes)
        } catch {
            findings.append(Finding(passed: false, text: "\(error.reason): export the pass again from peez"))
            return
        }
        let files = archive.files
        for required in ["pass.json", "manifest.json", "signature", "icon.png"] {
            check(files[required] != nil, "\(required) is there", "\(required) is missing: Wallet refuses a pass without it")
        }
        checkManifest(files)
        let pass = files["pass.json"].flatMap(PassDocument.readIfObject)
        check(pass != nil || files["pass.json"] == nil, "pass.json is a JSON object", "pass.json is not a JSON object: fix the JSON")
        if let manifest = files["manifest.json"], let signature = files["signature"] {
            checkSignature(signature, manifest: manifest, pass: pass, appleRoot: appleRoot, now: now)
        }
        if let pass { checkPassJSON(pass, verifier: verifier, now: now) }
        checkImages(files)
    }

    private mutating func checkManifest(_ files: [String: [UInt8]]) {
        guard let bytes = files["manifest.json"] else { return }
        let manifest: [String: String]
        do {
            manifest = try JSONDecoder().decode([String: String].self, from: Data(bytes))
        } catch {
            check(false, "", "manifest.json is not a JSON object of file names and SHA-1 hex digests (\(error)): build the manifest again")
            return
        }
        let listed = Set(files.keys).subtracting(["manifest.json", "signature"])
        let unlisted = listed.subtracting(manifest.keys).sorted()
        check(
            unlisted.isEmpty,
            "every file is in the manifest",
            "not in manifest.json: \(unlisted.joined(separator: ", ")); add them or remove the files"
        )
        let missing = Set(manifest.keys).subtracting(listed).sorted()
        check(missing.isEmpty, "every file the manifest lists is there", "manifest.json lists missing files: \(missing.joined(separator: ", "))")
        let wrong = manifest.filter { name, hash in files[name].map { PassPackage.sha1Hex($0) != hash.lowercased() } ?? false }.keys.sorted()
        check(
            wrong.isEmpty,
            "the manifest's \(manifest.count) SHA-1 hashes match their files",
            "the SHA-1 in manifest.json does not match \(wrong.joined(separator: ", ")): the file changed after signing; build and sign the pass again"
        )
    }

    private mutating func checkSignature(_ signature: [UInt8], manifest: [UInt8], pass: PassDocument?, appleRoot: X509Certificate?, now: Int64) {
        let input = copyingBIO(signature)
        defer { BIO_free(input) }
        guard let cms = d2i_CMS_bio(input, nil) else {
            _ = OpenSSLErrorQueue.drain()
            check(false, "", "signature is not a DER CMS (PKCS #7) signature: sign manifest.json as a detached PKCS #7 signature")
            return
        }
        defer { CMS_ContentInfo_free(cms) }
        func verifies(_ store: OpaquePointer?, _ flags: Int32) -> Bool {
            let content = copyingBIO(manifest)
            defer { BIO_free(content) }
            let ok = CMS_verify(cms, nil, store, content, nil, UInt32(flags)) == 1
            if !ok { _ = OpenSSLErrorQueue.drain() }
            return ok
        }
        let signed = verifies(nil, CMS_BINARY | CMS_NO_SIGNER_CERT_VERIFY)
        check(
            signed,
            "the signature verifies over manifest.json",
            "the signature does not verify over manifest.json: sign the manifest as it is now, detached"
        )
        guard signed else { return }

        var certificates: [X509Certificate] = []
        if let stack = CMS_get1_certs(cms) {
            for index in 0..<peez_sk_X509_num(stack) {
                if let certificate = peez_sk_X509_value(stack, index), X509_up_ref(certificate) == 1 {
                    certificates.append(X509Certificate(taking: certificate))
                }
            }
            peez_sk_X509_pop_free(stack)
        }
        guard let signer = certificates.first(where: { $0.userID != nil }) else {
            check(false, "", "the signature carries no Pass Type ID certificate (a subject with a UID): sign with the pass type certificate")
            return
        }
        let passType = pass?.text["passTypeIdentifier"]?.value
        let team = pass?.text["teamIdentifier"]?.value
        check(
            signer.userID == passType,
            "the certificate is for pass type \(signer.userID ?? "")",
            "the certificate is for pass type \(signer.userID ?? "?") but pass.json says \(passType ?? "nothing"): sign with that type's certificate or fix passTypeIdentifier"
        )
        check(
            signer.organizationalUnit == team,
            "the certificate belongs to team \(signer.organizationalUnit ?? "")",
            "the certificate belongs to team \(signer.organizationalUnit ?? "?") but pass.json says \(team ?? "nothing"): fix teamIdentifier"
        )
        check(
            signer.notBefore <= now && now <= signer.notAfter,
            "the pass type certificate is valid now",
            "the pass type certificate is not valid now (it runs to \(Date(timeIntervalSince1970: TimeInterval(signer.notAfter)))): renew it in Apple's developer account"
        )
        let intermediate = certificates.first { $0 !== signer && $0.issued(signer) }
        check(
            intermediate != nil,
            "the WWDR intermediate that issued the certificate is included",
            "the signature does not carry the WWDR intermediate that issued the certificate (\(signer.issuerLine)): include it when signing"
        )
        if let intermediate {
            check(
                intermediate.notBefore <= now && now <= intermediate.notAfter,
                "the WWDR intermediate is valid now",
                "the WWDR intermediate lapsed \(Date(timeIntervalSince1970: TimeInterval(intermediate.notAfter))): download Apple's current one (G4) and sign again"
            )
        }
        guard let appleRoot else {
            findings.append(
                Finding(passed: true, text: "the chain was not checked up to Apple's root: give --apple-root AppleRootCA.pem to check it")
            )
            return
        }
        guard let store = X509_STORE_new() else { return }
        defer { X509_STORE_free(store) }
        X509_STORE_add_cert(store, appleRoot.pointer)
        X509_STORE_set_purpose(store, X509_PURPOSE_ANY)
        check(
            verifies(store, CMS_BINARY),
            "the chain goes up to the given root (\(appleRoot.commonName ?? appleRoot.subjectLine))",
            "the certificates do not chain up to the given root: use Apple's WWDR intermediate and a certificate Apple issued"
        )
    }

    private mutating func checkPassJSON(_ pass: PassDocument, verifier: CardVerifier?, now: Int64) {
        let missing = PassDocument.requiredText.filter { (pass.text[$0]?.value ?? "").isEmpty }
        check(
            missing.isEmpty,
            "pass.json has the keys Wallet requires",
            "pass.json lacks \(missing.joined(separator: ", ")) (text, not empty): add them"
        )
        check(pass.formatVersion.value == 1, "formatVersion is 1", "formatVersion must be the number 1")
        let styles = pass.stylesPresent
        check(
            styles.count == 1,
            "the pass has one style (\(styles.first ?? ""))",
            "pass.json must have exactly one style key (storeCard for a PEEZ card), not \(styles.count)"
        )
        let barcodes = pass.barcodes.value ?? []
        let messages = barcodes.compactMap(\.message.value)
        check(!messages.isEmpty, "the pass has a barcode", "pass.json has no barcodes entry with a message: the counter needs the card's QR code")
        let formats = Set(barcodes.compactMap(\.format.value))
        check(
            formats.isSubset(of: ["PKBarcodeFormatQR"]),
            "its barcode is a QR code",
            "the barcode format must be PKBarcodeFormatQR, not \(formats.sorted())"
        )
        guard let verifier, let message = messages.first else { return }
        let result = verifier.verify(message, now: now)
        check(
            result.verdict == .valid,
            "the barcode is a valid card (\(result.claims?.subject ?? ""))",
            "the barcode is not a valid card for these keys (\(result.verdict.rawValue): \(result.detail)): build the pass from the member's current card"
        )
    }

    private mutating func checkImages(_ files: [String: [UInt8]]) {
        for (name, width, height, exact) in [("icon", 29, 29, true), ("logo", 160, 50, false)] {
            for scale in 1...3 {
                let file = name + (scale == 1 ? "" : "@\(scale)x") + ".png"
                guard let bytes = files[file] else { continue }
                guard let (w, h) = Self.pngSize(bytes) else {
                    check(false, "", "\(file) is not a PNG: export it as PNG")
                    continue
                }
                let fits = exact ? (w == width * scale && h == height * scale) : (w <= width * scale && h <= height * scale)
                let wanted = exact ? "\(width * scale) × \(height * scale)" : "at most \(width * scale) × \(height * scale)"
                check(fits, "\(file) is \(w) × \(h)", "\(file) is \(w) × \(h) pixels, not \(wanted): resize it")
            }
        }
    }

    /// A PNG's width and height from its header, nil if it is not a PNG.
    static func pngSize(_ bytes: [UInt8]) -> (Int, Int)? {
        guard bytes.count >= 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), bytes[12..<16] == [0x49, 0x48, 0x44, 0x52]
        else { return nil }
        return (bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }, bytes[20..<24].reduce(0) { $0 << 8 | Int($1) })
    }
}
