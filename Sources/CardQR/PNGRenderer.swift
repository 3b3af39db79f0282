import CPeezPNGWriter

/// Renders a QR matrix as a 1-bit greyscale PNG through libpng, byte-for-byte the same for the same input.
public struct PNGRenderer: Sendable {
    /// zlib settings for the image data.
    public struct Compression: Sendable, Hashable {
        /// zlib's strategy.
        public enum Strategy: Int32, Sendable, CaseIterable {
            case standard = 0
            case filtered = 1
            case huffmanOnly = 2
            case runLength = 3
        }
        /// PNG row filters libpng may choose from.
        public enum Filter: Int32, Sendable, CaseIterable {
            case none = 0x08
            case sub = 0x10
            case up = 0x20
            case all = 0xF8
        }

        public var level: Int32
        public var strategy: Strategy
        public var filter: Filter

        public init(level: Int32, strategy: Strategy, filter: Filter) {
            self.level = level
            self.strategy = strategy
            self.filter = filter
        }

        /// Chosen by measurement (`make bench` prints the sweep): on a 1-bit QR picture, zlib level 1 with
        /// the standard strategy and no row filter was the fastest of the twelve settings measured (about 4×
        /// level 6 and 50× level 9) and within a few percent of the size of the other fast settings. Level 6
        /// halves the file (about 840 bytes against 1,550 for a version-9 card) at about a quarter of the speed;
        /// choose it when bytes matter more than rendering time.
        public static let `default` = Compression(level: 1, strategy: .standard, filter: .none)
    }

    public var layout: QRLayout
    public var compression: Compression

    public init(layout: QRLayout = QRLayout(), compression: Compression = .default) {
        self.layout = layout
        self.compression = compression
    }

    /// The PNG bytes for `matrix`: dark modules black, light modules and the quiet zone white.
    public func render(_ matrix: QRMatrix) throws(CardQRError) -> [UInt8] {
        try layout.validate()
        let width = layout.pixelsPerSide(matrix)
        let rowBytes = (width + 7) / 8
        let modulesPerSide = layout.modulesPerSide(matrix)

        // One packed row per module row plus one blank row; pixel rows point into it, repeating each
        // module row `moduleSize` times, so the picture is never materialised in full.
        let distinctRows = matrix.size + 1
        var rows = [UInt8](repeating: 0xFF, count: distinctRows * rowBytes)
        for y in 0..<matrix.size {
            let base = y * rowBytes
            for x in 0..<matrix.size where matrix.isDark(x: x, y: y) {
                let firstPixel = (x + layout.quietZone) * layout.moduleSize
                for pixel in firstPixel..<(firstPixel + layout.moduleSize) {
                    rows[base + pixel >> 3] &= ~(0x80 >> UInt8(pixel & 7))
                }
            }
        }
        let blankRow = matrix.size

        var output = peez_png_buffer()
        defer { peez_png_buffer_free(&output) }
        var message: UnsafePointer<CChar>? = nil
        let options = peez_png_options(
            compression_level: compression.level,
            strategy: compression.strategy.rawValue,
            filters: compression.filter.rawValue
        )
        let status = rows.withUnsafeBufferPointer { storage -> Int32 in
            let base = storage.baseAddress!
            var pointers: [UnsafePointer<UInt8>?] = []
            pointers.reserveCapacity(width)
            for moduleRow in 0..<modulesPerSide {
                let y = moduleRow - layout.quietZone
                let row = (0..<matrix.size).contains(y) ? y : blankRow
                let pointer = base + row * rowBytes
                for _ in 0..<layout.moduleSize { pointers.append(pointer) }
            }
            return peez_png_write_gray1(pointers, UInt32(width), UInt32(width), options, &output, &message)
        }
        guard status == 0, let data = output.data else {
            throw CardQRError(.pngFailed, message.map { String(cString: $0) } ?? "libpng failed")
        }
        return Array(UnsafeBufferPointer(start: data, count: output.size))
    }
}
