/// Renders a QR matrix as a small SVG: one path of horizontal runs, crisp at any size.
public struct SVGRenderer: Sendable {
    public var layout: QRLayout

    public init(layout: QRLayout = QRLayout()) {
        self.layout = layout
    }

    /// The SVG document for `matrix`.
    public func render(_ matrix: QRMatrix) throws(CardQRError) -> String {
        try layout.validate()
        let side = layout.modulesPerSide(matrix)
        let pixels = layout.pixelsPerSide(matrix)
        var path = ""
        for y in 0..<matrix.size {
            var x = 0
            while x < matrix.size {
                guard matrix.isDark(x: x, y: y) else {
                    x += 1
                    continue
                }
                let start = x
                while x < matrix.size && matrix.isDark(x: x, y: y) { x += 1 }
                path += "M\(start + layout.quietZone) \(y + layout.quietZone)h\(x - start)v1h-\(x - start)z"
            }
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(pixels)" height="\(pixels)" viewBox="0 0 \(side) \(side)" shape-rendering="crispEdges">
            <rect width="\(side)" height="\(side)" fill="#fff"/>
            <path fill="#000" d="\(path)"/>
            </svg>

            """
    }
}
