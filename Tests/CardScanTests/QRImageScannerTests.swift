import CardCrypto
import CardQR
import CardScan
import CardToken
import Foundation
import PeezBasics
import Testing

@Suite struct QRImageScannerTests {
    let scanner = QRImageScanner()

    @Test("each fixture image gives exactly its expected codes or its expected refusal", arguments: ImageFixtures.shared.images)
    func fixtureImageScansAsExpected(_ image: ImageFixtures.Image) throws {
        let outcome: String
        var codes: [String] = []
        do {
            codes = try scanner.scan(fileAt: image.path).map { String(decoding: $0, as: UTF8.self) }
            outcome = codes.isEmpty ? "no_qr_code" : "codes"
        } catch {
            outcome =
                switch error.kind {
                case .notAnImage: "not_an_image"
                case .tooLarge: "too_large"
                case .damaged: "damaged"
                case .unreadable, .outOfMemory: "\(error.kind)"
                }
        }
        if let expected = image.expected.codes {
            #expect(outcome == "codes")
            #expect(codes == expected)
        } else {
            #expect(outcome == image.expected.error)
        }
    }

    @Test("every card found in the fixture images verifies as valid with the key that signed it")
    func foundCardsVerify() throws {
        var keys = TrustedKeySet()
        keys.insert(try Ed25519PublicKey(pem: ImageFixtures.primaryPublicKeyPEM))
        let verifier = CardVerifier(trustedKeys: keys)
        var verified = 0
        for image in ImageFixtures.shared.images {
            guard let expected = image.expected.codes else { continue }
            let codes = try scanner.scan(fileAt: image.path)
            #expect(codes.count == expected.count, "\(image.file): \(codes.count) of its \(expected.count) code(s) found")
            for code in codes {
                #expect(verifier.verify(String(decoding: code, as: UTF8.self), now: ImageFixtures.shared.now).verdict == .valid, "\(image.file)")
                verified += 1
            }
        }
        #expect(
            verified == ImageFixtures.shared.images.reduce(0) { $0 + ($1.expected.codes?.count ?? 0) } && verified > 0,
            "every card found verifies: \(verified)"
        )
    }

    @Test("a QR code rendered by the service's own PNG renderer scans back to exactly its text, at every module size down to 2")
    func ownRenderingScansBack() throws {
        let token = "PEEZ1:" + String(repeating: "6BFOXN*TS0BI$ZD", count: 12)
        let matrix = try QRMatrix.encode(token, errorCorrection: .medium)
        for moduleSize in [8, 4, 2] {
            let png = try PNGRenderer(layout: QRLayout(moduleSize: moduleSize)).render(matrix)
            #expect(try scanner.scan(imageData: png).map { String(decoding: $0, as: UTF8.self) } == [token], "module size \(moduleSize)")
        }
    }

    @Test("a file bigger than the byte limit is refused before it is decoded")
    func oversizedFileIsRefused() throws {
        var limits = ImageScanLimits()
        limits.maxFileBytes = 1_000
        let error = #expect(throws: ImageScanError.self) {
            try QRImageScanner(limits: limits).scan(fileAt: ImageFixtures.folder.appendingPathComponent("card-photo.jpg").path)
        }
        #expect(error?.kind == .tooLarge)
    }

    @Test("a progressive JPEG with more scans than allowed is refused (the many-scans denial of service)")
    func tooManyProgressiveScansAreRefused() throws {
        let path = ImageFixtures.folder.appendingPathComponent("card-progressive.jpg").path
        #expect(try scanner.scan(fileAt: path).count == 1)
        var limits = ImageScanLimits()
        limits.maxJPEGScans = 2
        let error = #expect(throws: ImageScanError.self) { try QRImageScanner(limits: limits).scan(fileAt: path) }
        #expect(error?.kind == .tooLarge)
    }

    @Test("a PNG whose pixels would exceed the pixel limit is refused from its header")
    func pixelLimitIsEnforced() throws {
        var limits = ImageScanLimits()
        limits.maxPixels = 10_000
        let error = #expect(throws: ImageScanError.self) {
            try QRImageScanner(limits: limits).scan(fileAt: ImageFixtures.folder.appendingPathComponent("card.png").path)
        }
        #expect(error?.kind == .tooLarge)
    }

    @Test("a missing file is a clear error naming it")
    func missingFileIsUnreadable() {
        let error = #expect(throws: ImageScanError.self) { try scanner.scan(fileAt: "/nonexistent/card.png") }
        #expect(error?.kind == .unreadable)
        #expect(error?.description.contains("/nonexistent/card.png") == true)
    }

    @Test(
        "hundreds of randomly damaged PNG and JPEG files never crash the scanner",
        arguments: ["card.png", "card-photo.jpg", "card-progressive.jpg"]
    )
    func damagedFilesNeverCrash(_ file: String) throws {
        let original = [UInt8](try Data(contentsOf: ImageFixtures.folder.appendingPathComponent(file)))
        var generator = SplitMix64(seed: 0x9EE2 &+ UInt64(original.count))
        var refused = 0
        for round in 0..<300 {
            var bytes = original
            switch round % 3 {
            case 0:  // flip a few bytes anywhere after the signature
                for _ in 0..<(1 + Int(generator.next() % 8)) {
                    bytes[8 + Int(generator.next() % UInt64(bytes.count - 8))] = UInt8(truncatingIfNeeded: generator.next())
                }
            case 1:  // cut it short
                bytes.removeLast(Int(generator.next() % UInt64(bytes.count - 8)))
            default:  // overwrite a run in the first kilobyte, where the headers are
                let start = 8 + Int(generator.next() % UInt64(min(1_024, bytes.count - 16)))
                for index in start..<min(bytes.count, start + 4) { bytes[index] = UInt8(truncatingIfNeeded: generator.next()) }
            }
            do { _ = try scanner.scan(imageData: bytes) } catch { refused += 1 }
        }
        #expect(refused > 0)
    }
}
