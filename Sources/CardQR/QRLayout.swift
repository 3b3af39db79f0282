/// How a matrix is laid out on a picture: pixels per module and the blank margin around it.
public struct QRLayout: Sendable, Hashable {
    /// Pixels per module side (1...64).
    public var moduleSize: Int
    /// Blank modules on each side; the QR standard asks for 4.
    public var quietZone: Int

    public init(moduleSize: Int = 8, quietZone: Int = 4) {
        self.moduleSize = moduleSize
        self.quietZone = quietZone
    }

    /// Throws `invalidOptions` for sizes no scanner could use or that would make absurd pictures.
    public func validate() throws(CardQRError) {
        guard (1...64).contains(moduleSize) else {
            throw CardQRError(.invalidOptions, "the module size must be 1 to 64 pixels, not \(moduleSize)")
        }
        guard (0...16).contains(quietZone) else {
            throw CardQRError(.invalidOptions, "the quiet zone must be 0 to 16 modules, not \(quietZone)")
        }
    }

    /// Modules per side including the quiet zone.
    public func modulesPerSide(_ matrix: QRMatrix) -> Int { matrix.size + 2 * quietZone }

    /// Pixels per side of the whole picture.
    public func pixelsPerSide(_ matrix: QRMatrix) -> Int { modulesPerSide(matrix) * moduleSize }
}
