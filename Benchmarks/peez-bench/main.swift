import CPeezOpenSSL
// peez-bench: the card core's speed on one core, beside baselines measured in the same run.
//
//   make bench            (release build, pinned to one core with taskset)
//   swift run -c release peez-bench [--quick]
import CardCrypto
import CardQR
import CardScan
import CardToken
import Foundation
import WalletPass

let quick = CommandLine.arguments.contains("--quick")
let rounds = quick ? 3 : 7
let seconds = quick ? 0.2 : 0.6

let key = try Ed25519PrivateKey.generate()
let issuer = CardIssuer(signingKey: key)
let verifier = CardVerifier(trustedKeys: TrustedKeySet([key.publicKey]))
let claims = CardClaims(subject: "PEEZ-20251103-00002", expiresAt: 1_900_000_000, issuedAt: 1_800_000_000, name: "Ahmed Mohamed")
let token = try issuer.issue(claims)
let envelope = try issuer.sign(claims)
let signatureInput = envelope.signatureInput
let rawKey = Baselines.loadPrivateKey(try key.pemRepresentation())
let rawPublicKey = rawKey  // an EVP_PKEY with a private key verifies with its public half
let matrix = try QRMatrix.encode(token)
let renderer = PNGRenderer(layout: QRLayout(moduleSize: 8, quietZone: 4))
let now: Int64 = 1_850_000_000
precondition(verifier.verify(token, now: now).verdict == .valid)

func row(_ cells: [String], _ widths: [Int]) -> String {
    zip(cells, widths).map { cell, width in
        cell.count >= width ? cell : cell + String(repeating: " ", count: width - cell.count)
    }.joined(separator: "  ")
}

func rate(_ value: Double) -> String { String(format: "%.0f/s", value) }

print("peez-bench: one core, \(rounds) interleaved rounds of \(seconds) s, median rate")
print("token: \(token.utf8.count) characters, QR version \(matrix.version) (\(matrix.size) modules), Sig_structure \(signatureInput.count) bytes")
print("")

var core = [
    Measurement("sign token (claims → PEEZ1 text)") { _ = try issuer.issue(claims) },
    Measurement("raw EVP Ed25519 sign, same message") { _ = Baselines.rawSign(rawKey, signatureInput) },
    Measurement("verify token (Base45, CBOR, signature, claims)") { _ = verifier.verify(token, now: now) },
    Measurement("raw EVP Ed25519 verify, same message") { _ = Baselines.rawVerify(rawPublicKey, envelope.signature, signatureInput) },
    Measurement("QR PNG, 8 px/module (token → PNG bytes)") { _ = try renderer.render(try QRMatrix.encode(token)) },
    Measurement("libqrencode matrix only, same token") { _ = Baselines.matrixOnly(token) },
    Measurement("plain libqrencode + libpng defaults, 8-bit") { _ = Baselines.plainPNG(token, moduleSize: 8, quietZone: 4) },
]
try measure(&core, rounds: rounds, seconds: seconds)

let widths = [48, 10, 30]
print(row(["operation", "rate", "against the baseline"], widths))
print(row([String(repeating: "-", count: 48), "----------", String(repeating: "-", count: 30)], widths))
let comparisons: [Int: (Int, String)] = [0: (1, "of raw sign"), 2: (3, "of raw verify"), 4: (5, "of matrix-only rate")]
for (index, measurement) in core.enumerated() {
    var note = ""
    if let (baseline, label) = comparisons[index] {
        note = String(format: "%.1f %% %@", 100 * measurement.median / core[baseline].median, label)
    }
    if index == 4 { note += String(format: "; %.2f× plain", measurement.median / core[6].median) }
    print(row([measurement.name, rate(measurement.median), note], widths))
}

print("")
// Presentations: a bound card, signed again by the member's phone every 30 s.
let phone = try Ed25519PrivateKey.generate()
let phoneKey = try DeviceKey(rawRepresentation: phone.publicKey.rawRepresentation)
let boundClaims = CardClaims(subject: claims.subject, expiresAt: claims.expiresAt, issuedAt: claims.issuedAt, name: claims.name, deviceKey: phoneKey)
let boundCard = try issuer.sign(boundClaims)
let maker = try PresentationMaker(cardToken: try issuer.issue(boundClaims), deviceKey: phone, publicKey: phoneKey)
let presentation = try maker.present(at: now - 10)
precondition(verifier.verify(presentation, now: now).verdict == .valid)
let presentationPayload = Presentation(card: boundCard.encoded(), madeAt: now - 10).payload
let presentationInput = COSESign1.signatureInput(protectedHeader: Presentation.protectedHeader, payload: presentationPayload)
let presentationSignature = try phone.sign(presentationInput)
let rawPhoneKey = Baselines.loadPrivateKey(try phone.pemRepresentation())
precondition(
    Baselines.rawVerify(rawPublicKey, boundCard.signature, boundCard.signatureInput)
        && Baselines.rawVerify(rawPhoneKey, presentationSignature, presentationInput)
)
let presentationMatrix = try QRMatrix.encode(presentation)
print(
    "Presentations: \(presentation.utf8.count) characters, QR version \(presentationMatrix.version) (\(presentationMatrix.size) modules) at error correction M"
)
var presentations = [
    Measurement("verify presentation (card, device signature, time)") { _ = verifier.verify(presentation, now: now) },
    Measurement("raw EVP Ed25519 verify ×2, same two messages") {
        _ =
            Baselines.rawVerify(rawPublicKey, boundCard.signature, boundCard.signatureInput)
            && Baselines.rawVerify(rawPhoneKey, presentationSignature, presentationInput)
    },
    Measurement("presentation QR PNG, 8 px/module (text → PNG)") { _ = try renderer.render(try QRMatrix.encode(presentation)) },
    Measurement("phone: make + draw (sign, QR, PNG)") { _ = try renderer.render(try QRMatrix.encode(try maker.present(at: now))) },
]
try measure(&presentations, rounds: rounds, seconds: seconds)
for (index, measurement) in presentations.enumerated() {
    let note = index == 0 ? String(format: "%.1f %% of raw verify ×2", 100 * measurement.median / presentations[1].median) : ""
    print(row([measurement.name, rate(measurement.median), note], widths))
}

print("")
print("PNG compression settings (same matrix, 8 px/module): rate and size")
var sweep: [(PNGRenderer.Compression, Measurement)] = []
for level: Int32 in [1, 6, 9] {
    for strategy in [PNGRenderer.Compression.Strategy.standard, .runLength] {
        for filter in [PNGRenderer.Compression.Filter.none, .up] {
            let compression = PNGRenderer.Compression(level: level, strategy: strategy, filter: filter)
            let candidate = PNGRenderer(layout: renderer.layout, compression: compression)
            sweep.append((compression, Measurement("level \(level) \(strategy) filter \(filter)") { _ = try candidate.render(matrix) }))
        }
    }
}
var sweepMeasurements = sweep.map(\.1)
try measure(&sweepMeasurements, rounds: quick ? 1 : 3, seconds: seconds / 2)
for (index, measurement) in sweepMeasurements.enumerated() {
    let size = try PNGRenderer(layout: renderer.layout, compression: sweep[index].0).render(matrix).count
    let marker = sweep[index].0 == .default ? "  ← default" : ""
    print(row([measurement.name, rate(measurement.median), "\(size) bytes\(marker)"], widths))
}

print("")
print("Image scanning (decode + zbar, in process), each beside decoding the same file alone")
let scanner = QRImageScanner()
let ownPNG = try renderer.render(matrix)
let photo = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "Fixtures/images/card-photo.jpg")))
let (pngCodes, photoCodes) = (try scanner.scan(imageData: ownPNG), try scanner.scan(imageData: photo))
precondition(pngCodes.count == 1 && photoCodes.count == 1, "the images must scan")
let pngSide = renderer.layout.pixelsPerSide(matrix)
var scans = [
    Measurement("scan the service's PNG (\(pngSide)×\(pngSide), \(ownPNG.count) B)") { _ = try scanner.scan(imageData: ownPNG) },
    Measurement("  libpng decode alone") { Baselines.decodeOnly(ownPNG) },
    Measurement("scan a 1280×720 JPEG photo (\(photo.count / 1024) KB)") { _ = try scanner.scan(imageData: photo) },
    Measurement("  libjpeg decode alone") { Baselines.decodeOnly(photo) },
]
try measure(&scans, rounds: rounds, seconds: seconds)
for (index, measurement) in scans.enumerated() {
    let note =
        index % 2 == 0
        ? String(format: "%.2f ms a scan", 1000 / measurement.median)
        : String(format: "%.0f %% of the scan's time", 100 * scans[index - 1].median / measurement.median)
    print(row([measurement.name, rate(measurement.median), note], widths))
}

print("")
print("Apple Wallet passes (a chain made by openssl for the run: RSA 2048 pass type certificate, as Apple's)")
let walletFolder = NSTemporaryDirectory() + "peez-bench-wallet-" + UUID().uuidString
try FileManager.default.createDirectory(atPath: walletFolder, withIntermediateDirectories: true)
let chainScript = """
    set -e
    cd '\(walletFolder)'
    key() { openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$1" 2>/dev/null; }
    key root.key; key wwdr.key; key pass.key
    printf 'basicConstraints=critical,CA:TRUE\\nkeyUsage=critical,keyCertSign\\n' > ca.ext
    openssl req -x509 -new -key root.key -subj '/CN=Bench Root' -days 1 -out root.pem 2>/dev/null
    openssl req -new -key wwdr.key -subj '/CN=Bench WWDR' -out wwdr.csr 2>/dev/null
    openssl x509 -req -in wwdr.csr -CA root.pem -CAkey root.key -CAcreateserial -days 1 -extfile ca.ext -out wwdr.pem 2>/dev/null
    openssl req -new -key pass.key -subj '/UID=pass.dz.peez.bench/CN=Pass Type ID: pass.dz.peez.bench/OU=BENCHTEAM1' -out pass.csr 2>/dev/null
    openssl x509 -req -in pass.csr -CA wwdr.pem -CAkey wwdr.key -CAcreateserial -days 1 -out pass.pem 2>/dev/null
    """
let chainMaker = Process()
chainMaker.executableURL = URL(fileURLWithPath: "/bin/bash")
chainMaker.arguments = ["-c", chainScript]
try chainMaker.run()
chainMaker.waitUntilExit()
precondition(chainMaker.terminationStatus == 0, "openssl could not make the bench chain")
func walletFile(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: walletFolder + "/" + name))) }
let walletIdentity = try PassSigningIdentity(
    certificatePEM: try walletFile("pass.pem"),
    keyPEM: try walletFile("pass.key"),
    intermediatePEM: try walletFile("wwdr.pem"),
    passTypeIdentifier: "pass.dz.peez.bench",
    teamIdentifier: "BENCHTEAM1",
    now: Int64(Date().timeIntervalSince1970) + 1
)
let benchPass = MembershipPass(
    serialNumber: "00000000-0000-4000-8000-000000000001",
    memberName: "Ahmed Mohamed",
    membershipID: "PEEZ-20251103-00002",
    cardToken: token,
    coverageEnd: 1_900_000_000,
    voided: false,
    authenticationToken: "bench-token-of-more-than-16-characters",
    webServiceURL: "https://cards.peez.dz/wallet"
)
let passFiles = try PassPackage.files(of: benchPass, identity: walletIdentity, now: now)
let passManifest = PassPackage.manifest(of: passFiles)
var wallet = [
    Measurement("pass: build, sign and zip (.pkpass bytes)") { _ = try PassPackage.build(benchPass, identity: walletIdentity, now: now) },
    Measurement("  CMS signature of the manifest alone") { _ = try walletIdentity.sign(passManifest) },
]
try measure(&wallet, rounds: rounds, seconds: seconds)
let passSize = try PassPackage.build(benchPass, identity: walletIdentity, now: now).count
for (index, measurement) in wallet.enumerated() {
    let note =
        index == 0
        ? String(format: "%.2f ms a pass, %d bytes", 1000 / measurement.median, passSize)
        : String(format: "%.0f %% of a pass's time", 100 * wallet[0].median / measurement.median)
    print(row([measurement.name, rate(measurement.median), note], widths))
}
try? FileManager.default.removeItem(atPath: walletFolder)
