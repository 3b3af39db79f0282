import CardQR
import Foundation
import TestSupport
import Testing

@Suite("QR rendering")
struct QRRenderingTests {
    /// A token-shaped text of a realistic length (a card with a name is about 230 characters).
    static let token = "PEEZ1:" + String(repeating: "6BFOXN*TS0BI$ZD8UHTEH$ZN 9P60GO02-1+VS1LJ/E98CK:D9-70T6A", count: 4)

    @Test func pngDecodesBackToExactlyTheTokenWithZbar() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for level in QRErrorCorrection.allCases {
            let png = try PNGRenderer().render(try QRMatrix.encode(Self.token, errorCorrection: level))
            let path = folder.file("card-\(level.rawValue).png")
            try Data(png).write(to: URL(fileURLWithPath: path))
            let decoded = try ProcessRunner.run(["zbarimg", "--nodbus", "--quiet", "--raw", path])
            #expect(decoded.status == 0, "zbarimg: \(decoded.standardError)")
            #expect(decoded.standardOutput.trimmingCharacters(in: .newlines) == Self.token, "level \(level.rawValue)")
        }
    }

    @Test func pngIsOneBitGreyscaleOfTheRightSize() throws {
        let matrix = try QRMatrix.encode(Self.token)
        let png = try PNGRenderer(layout: QRLayout(moduleSize: 8, quietZone: 4)).render(matrix)
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let side = (matrix.size + 8) * 8
        let ihdr = Array(png[12..<29])
        #expect(Array(ihdr[0..<4]) == Array("IHDR".utf8))
        #expect(Int(ihdr[4]) << 24 | Int(ihdr[5]) << 16 | Int(ihdr[6]) << 8 | Int(ihdr[7]) == side)
        #expect(ihdr[12] == 1, "bit depth 1")
        #expect(ihdr[13] == 0, "colour type 0: greyscale")
    }

    @Test func pngIsByteForByteDeterministic() throws {
        let matrix = try QRMatrix.encode(Self.token)
        #expect(try PNGRenderer().render(matrix) == (try PNGRenderer().render(try QRMatrix.encode(Self.token))))
        #expect(try PNGRenderer().render(matrix) != (try PNGRenderer(layout: QRLayout(moduleSize: 4)).render(matrix)))
    }

    @Test func higherErrorCorrectionNeedsALargerSymbol() throws {
        let low = try QRMatrix.encode(Self.token, errorCorrection: .low)
        let high = try QRMatrix.encode(Self.token, errorCorrection: .high)
        #expect(high.version > low.version)
        #expect(low.size == 17 + 4 * low.version)
    }

    @Test func alphanumericModeKeepsTheSymbolSmall() throws {
        // 230 alphanumeric characters fit version 9 at level M; in byte mode they would need version 11.
        let matrix = try QRMatrix.encode(String(Self.token.prefix(230)))
        #expect(matrix.version <= 9)
    }

    @Test func textOutsideAlphanumericModeIsRefused() {
        #expect(throws: CardQRError(.notAlphanumeric, "")) { try QRMatrix.encode("peez1:lowercase") }
        #expect(throws: CardQRError(.invalidOptions, "")) { try QRMatrix.encode("") }
    }

    @Test func textTooLongForAnySymbolIsRefused() {
        #expect(throws: CardQRError(.tooLong, "")) { try QRMatrix.encode(String(repeating: "A", count: 5_000)) }
    }

    @Test func absurdLayoutsAreRefused() throws {
        let matrix = try QRMatrix.encode("PEEZ1:AB")
        #expect(throws: CardQRError(.invalidOptions, "")) { try PNGRenderer(layout: QRLayout(moduleSize: 0)).render(matrix) }
        #expect(throws: CardQRError(.invalidOptions, "")) { try PNGRenderer(layout: QRLayout(moduleSize: 65)).render(matrix) }
        #expect(throws: CardQRError(.invalidOptions, "")) { try SVGRenderer(layout: QRLayout(quietZone: 17)).render(matrix) }
    }

    @Test func svgDrawsEveryDarkModuleInsideTheQuietZone() throws {
        let matrix = try QRMatrix.encode("PEEZ1:AB")
        let svg = try SVGRenderer(layout: QRLayout(moduleSize: 10, quietZone: 4)).render(matrix)
        let side = matrix.size + 8
        #expect(svg.contains("viewBox=\"0 0 \(side) \(side)\""))
        #expect(svg.contains("width=\"\(side * 10)\""))
        // Summing the run lengths of the path gives back the number of dark modules.
        let runs = svg.split(separator: "h").dropFirst().compactMap { Int($0.prefix(while: \.isNumber)) }
        #expect(runs.reduce(0, +) == matrix.modules.filter { $0 }.count)
    }

    @Test func terminalPreviewUsesTwoModuleRowsPerLine() throws {
        let matrix = try QRMatrix.encode("PEEZ1:AB")
        let text = TerminalRenderer(quietZone: 2, ansiColors: false).render(matrix)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == (matrix.size + 4 + 1) / 2)
        #expect(lines.allSatisfy { $0.count == matrix.size + 4 })
        #expect(lines[1].contains("█"))
    }
}
