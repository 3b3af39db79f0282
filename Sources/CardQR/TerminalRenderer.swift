/// Renders a QR matrix for a terminal with Unicode half blocks: two module rows per text line.
public struct TerminalRenderer: Sendable {
    /// Blank modules around the symbol.
    public var quietZone: Int
    /// Wraps each line in ANSI colours (black on white) so the code scans on dark terminals too.
    public var ansiColors: Bool

    public init(quietZone: Int = 2, ansiColors: Bool = true) {
        self.quietZone = quietZone
        self.ansiColors = ansiColors
    }

    /// The lines of text, each ending in a newline.
    public func render(_ matrix: QRMatrix) -> String {
        let side = matrix.size + 2 * quietZone
        func dark(_ x: Int, _ y: Int) -> Bool {
            let mx = x - quietZone
            let my = y - quietZone
            guard (0..<matrix.size).contains(mx), (0..<matrix.size).contains(my) else { return false }
            return matrix.isDark(x: mx, y: my)
        }
        var out = ""
        var y = 0
        while y < side {
            if ansiColors { out += "\u{1B}[30;107m" }
            for x in 0..<side {
                switch (dark(x, y), dark(x, y + 1)) {
                case (true, true): out += "█"
                case (true, false): out += "▀"
                case (false, true): out += "▄"
                case (false, false): out += " "
                }
            }
            if ansiColors { out += "\u{1B}[0m" }
            out += "\n"
            y += 2
        }
        return out
    }
}
