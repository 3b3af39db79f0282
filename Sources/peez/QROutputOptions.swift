public import ArgumentParser
import CardQR
import Foundation

extension QRErrorCorrection: ExpressibleByArgument {}

/// Where a command draws the QR code of the text it prints: a PNG, an SVG, this terminal.
struct QROutputOptions: ParsableArguments {
    @Option(help: "Write the QR code as a PNG file.")
    var png: String?

    @Option(help: "Write the QR code as an SVG file.")
    var svg: String?

    @Flag(help: "Show the QR code in this terminal.")
    var terminal = false

    @Option(help: "QR error correction: L, M, Q or H.")
    var errorCorrection: QRErrorCorrection = .medium

    @Option(help: "Pixels per QR module in the PNG and SVG.")
    var moduleSize = 8

    @Option(help: "Blank modules around the QR code.")
    var quietZone = 4

    func validate() throws {
        try QRLayout(moduleSize: moduleSize, quietZone: quietZone).validate()
    }

    /// Whether any picture was asked for.
    var wantsPicture: Bool { png != nil || svg != nil || terminal }

    /// The QR code of `text` at the chosen error correction.
    func matrix(of text: String) throws -> QRMatrix {
        try QRMatrix.encode(text, errorCorrection: errorCorrection)
    }

    /// Writes the pictures asked for of `text` (a card's Base45 in alphanumeric mode; any other text, such as a
    /// link, in byte mode): the files, and the terminal drawing on standard error.
    func draw(_ text: String, byteMode: Bool = false) throws {
        guard wantsPicture else { return }
        let matrix = byteMode ? try QRMatrix.encodeBytes(text, errorCorrection: errorCorrection) : try matrix(of: text)
        let layout = QRLayout(moduleSize: moduleSize, quietZone: quietZone)
        if let png { try write(Data(try PNGRenderer(layout: layout).render(matrix)), to: png) }
        if let svg { try write(Data(try SVGRenderer(layout: layout).render(matrix).utf8), to: svg) }
        if terminal { printError(TerminalRenderer().render(matrix)) }
    }

    private func write(_ data: Data, to path: String) throws {
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw ValidationError("cannot write \(path): \(error.localizedDescription)")
        }
    }
}
