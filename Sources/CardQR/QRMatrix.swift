import CPeezQRencode

#if canImport(Glibc)
import Glibc
#endif

/// QR error-correction levels: how much of the symbol may be damaged and still read.
public enum QRErrorCorrection: String, Sendable, CaseIterable {
    /// About 7 % recoverable.
    case low = "L"
    /// About 15 % recoverable: the default, a good fit for a phone screen.
    case medium = "M"
    /// About 25 % recoverable.
    case quartile = "Q"
    /// About 30 % recoverable.
    case high = "H"

    var level: QRecLevel {
        switch self {
        case .low: return QR_ECLEVEL_L
        case .medium: return QR_ECLEVEL_M
        case .quartile: return QR_ECLEVEL_Q
        case .high: return QR_ECLEVEL_H
        }
    }
}

/// The square grid of modules of one QR symbol, without its quiet zone.
public struct QRMatrix: Sendable, Hashable {
    /// Modules per side.
    public let size: Int
    /// The QR version (1...40) libqrencode chose.
    public let version: Int
    /// Row-major modules, `true` for dark.
    public let modules: [Bool]

    public init(size: Int, version: Int, modules: [Bool]) {
        precondition(modules.count == size * size, "a QR matrix needs size × size modules")
        self.size = size
        self.version = version
        self.modules = modules
    }

    /// Whether the module at column `x`, row `y` is dark.
    @inlinable public func isDark(x: Int, y: Int) -> Bool { modules[y * size + x] }

    /// Encodes `text` in QR alphanumeric mode (the mode Base45 was designed for) at the smallest version
    /// that fits.
    public static func encode(_ text: String, errorCorrection: QRErrorCorrection = .medium) throws(CardQRError) -> QRMatrix {
        let bytes = Array(text.utf8)
        guard bytes.allSatisfy(isAlphanumeric) else {
            throw CardQRError(.notAlphanumeric, "the text has characters outside QR alphanumeric mode (0-9, A-Z, space, $%*+-./:)")
        }
        return try encode(bytes, mode: QR_MODE_AN, errorCorrection: errorCorrection)
    }

    /// Encodes `text` as UTF-8 in QR byte mode (a link, with its lower-case letters, `#` and `=`), at the smallest
    /// version that fits.
    public static func encodeBytes(_ text: String, errorCorrection: QRErrorCorrection = .medium) throws(CardQRError) -> QRMatrix {
        try encode(Array(text.utf8), mode: QR_MODE_8, errorCorrection: errorCorrection)
    }

    private static func encode(_ bytes: [UInt8], mode: QRencodeMode, errorCorrection: QRErrorCorrection) throws(CardQRError) -> QRMatrix {
        guard !bytes.isEmpty else { throw CardQRError(.invalidOptions, "there is no text to encode") }
        guard let input = QRinput_new2(0, errorCorrection.level) else {
            throw CardQRError(.encoderFailed, "libqrencode could not allocate its input")
        }
        defer { QRinput_free(input) }
        guard QRinput_append(input, mode, Int32(bytes.count), bytes) == 0 else {
            throw CardQRError(.encoderFailed, "libqrencode refused the text: \(String(cString: strerror(errno)))")
        }
        guard let code = QRcode_encodeInput(input) else {
            if errno == ERANGE {
                throw CardQRError(.tooLong, "\(bytes.count) characters do not fit in a QR symbol at level \(errorCorrection.rawValue)")
            }
            throw CardQRError(.encoderFailed, "libqrencode failed: \(String(cString: strerror(errno)))")
        }
        defer { QRcode_free(code) }
        let size = Int(code.pointee.width)
        let data = UnsafeBufferPointer(start: code.pointee.data, count: size * size)
        // libqrencode marks a dark module with bit 0 of each byte.
        return QRMatrix(size: size, version: Int(code.pointee.version), modules: data.map { $0 & 1 == 1 })
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"): return true
        case UInt8(ascii: " "), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "*"), UInt8(ascii: "+"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: ":"):
            return true
        default: return false
        }
    }
}
