import CardCrypto
import CardQR
import CardScan
import CardToken
import Foundation
import Testing

/// A presentation holds the card and a signature more, so its QR code is larger than the card's: it must
/// stay as easy to scan. A phone screen at 8 pixels a module, seen by the counter's camera at a quarter of
/// that, must still read.
@Suite("Presentation QR codes")
struct PresentationQRTests {
    /// A presentation of a card with a long name (the name is what makes a card large), as the phone makes it.
    static func presentation(name: String) throws -> String {
        let issuer = CardIssuer(signingKey: try Ed25519PrivateKey.generate())
        let phone = try Ed25519PrivateKey.generate()
        let deviceKey = try DeviceKey(rawRepresentation: phone.publicKey.rawRepresentation)
        let card = try issuer.issue(
            CardClaims(subject: "PEEZ-20251103-00002", expiresAt: 1_800_000_000, issuedAt: 1_790_000_000, name: name, deviceKey: deviceKey)
        )
        return try PresentationMaker(cardToken: card, deviceKey: phone, publicKey: deviceKey).present(at: 1_795_000_000)
    }

    @Test(
        "at 8 px a module, scaled to 25 % (2 px, greys at the edges), a presentation scans back whole",
        arguments: ["Ahmed Mohamed", String(repeating: "é", count: 64)]
    )
    func presentationScansAtAQuarterScale(name: String) throws {
        let text = try Self.presentation(name: name)
        let matrix = try QRMatrix.encode(text, errorCorrection: .medium)
        let layout = QRLayout(moduleSize: 8, quietZone: 4)
        let side = (matrix.size + 2 * layout.quietZone) * layout.moduleSize
        var pixels = [UInt8](repeating: 255, count: side * side)
        for y in 0..<side {
            for x in 0..<side {
                let (mx, my) = (x / layout.moduleSize - layout.quietZone, y / layout.moduleSize - layout.quietZone)
                if (0..<matrix.size).contains(mx), (0..<matrix.size).contains(my), matrix.isDark(x: mx, y: my) { pixels[y * side + x] = 0 }
            }
        }
        let quarter = GreyPNG.scaledDown(pixels, side: side, by: 4)
        let scanned = try QRImageScanner().scan(imageData: GreyPNG.encode(quarter.pixels, width: quarter.side, height: quarter.side))
        #expect(scanned.map { String(decoding: $0, as: UTF8.self) } == [text], "version \(matrix.version), \(matrix.size) modules")
        print(
            "presentation QR (\(name.utf8.count)-byte name, error correction M): \(text.utf8.count) characters, version \(matrix.version), \(matrix.size) x \(matrix.size) modules"
        )
    }
}
