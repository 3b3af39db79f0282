internal import CPeezImageReader
internal import CPeezZBar
import Foundation

/// Finds and decodes every QR code in a PNG or JPEG photo or screenshot, in this process: the picture
/// through libpng or libjpeg, the codes through zbar. Bounded by `limits` whatever the file claims.
public struct QRImageScanner: Sendable {
    public var limits: ImageScanLimits

    public init(limits: ImageScanLimits = ImageScanLimits()) {
        self.limits = limits
    }

    /// The contents of every QR code in the file, left to right; empty when there is none.
    public func scan(fileAt path: String) throws(ImageScanError) -> [[UInt8]] {
        try scan(imageData: try readBounded(path))
    }

    /// The contents of every QR code in a PNG or JPEG held in memory, left to right; empty when there is none.
    public func scan(imageData bytes: [UInt8]) throws(ImageScanError) -> [[UInt8]] {
        guard bytes.count <= limits.maxFileBytes else {
            throw ImageScanError(
                .tooLarge,
                "the file is \(bytes.count >> 20) MB, more than any photo of a card (\(limits.maxFileBytes >> 20) MB at most)"
            )
        }
        var image = peez_gray_image()
        var message: UnsafePointer<CChar>?
        let cLimits = peez_image_limits(
            max_side: limits.maxSide,
            max_pixels: limits.maxPixels,
            max_decoder_bytes: limits.maxDecoderBytes,
            max_jpeg_scans: limits.maxJPEGScans
        )
        let status = bytes.withUnsafeBufferPointer { buffer in
            peez_image_decode(buffer.baseAddress, buffer.count, cLimits, &image, &message)
        }
        defer { peez_gray_image_free(&image) }
        guard status == PEEZ_IMAGE_OK else {
            let text = message.map { String(cString: $0) } ?? "the image could not be read"
            switch status {
            case PEEZ_IMAGE_NOT_AN_IMAGE: throw ImageScanError(.notAnImage, text)
            case PEEZ_IMAGE_TOO_LARGE where image.width > 0:
                throw ImageScanError(
                    .tooLarge,
                    "\(text): \(image.width) × \(image.height) pixels, where \(limits.maxSide) a side and \(limits.maxPixels / 1_000_000) megapixels is the most taken"
                )
            case PEEZ_IMAGE_TOO_LARGE: throw ImageScanError(.tooLarge, text)
            case PEEZ_IMAGE_NO_MEMORY: throw ImageScanError(.outOfMemory, text)
            default: throw ImageScanError(.damaged, text)
            }
        }
        return Self.decodeQRCodes(image)
    }

    private func readBounded(_ path: String) throws(ImageScanError) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ImageScanError(.unreadable, "cannot open \(path)")
        }
        defer { try? handle.close() }
        do {
            let data = try handle.read(upToCount: limits.maxFileBytes + 1) ?? Data()
            guard data.count <= limits.maxFileBytes else {
                throw ImageScanError(.tooLarge, "\(path) is more than \(limits.maxFileBytes >> 20) MB, more than any photo of a card")
            }
            return Array(data)
        } catch let error as ImageScanError {
            throw error
        } catch {
            throw ImageScanError(.unreadable, "cannot read \(path): \(error.localizedDescription)")
        }
    }

    /// zbar's greyscale format, fourcc "Y800".
    private static let greyscaleFourCC: UInt = 0x3030_3859

    /// Scans every third row and column first, which finds a code of any usual size at a third of the cost,
    /// then every line when that found nothing (a code only a few pixels a module, as in a small thumbnail).
    private static func decodeQRCodes(_ picture: peez_gray_image) -> [[UInt8]] {
        let quick = decodeQRCodes(picture, lineSpacing: 3)
        return quick.isEmpty ? decodeQRCodes(picture, lineSpacing: 1) : quick
    }

    private static func decodeQRCodes(_ picture: peez_gray_image, lineSpacing: Int32) -> [[UInt8]] {
        guard let scanner = zbar_image_scanner_create() else { return [] }
        defer { zbar_image_scanner_destroy(scanner) }
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1)
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1)
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_X_DENSITY, lineSpacing)
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_Y_DENSITY, lineSpacing)
        guard let image = zbar_image_create() else { return [] }
        defer {
            zbar_image_set_data(image, nil, 0, nil)  // the pixels belong to the reader, not to zbar
            zbar_image_destroy(image)
        }
        zbar_image_set_format(image, greyscaleFourCC)
        zbar_image_set_size(image, picture.width, picture.height)
        zbar_image_set_data(image, picture.pixels, UInt(picture.width) * UInt(picture.height), nil)
        guard zbar_scan_image(scanner, image) > 0 else { return [] }

        var found: [(x: Int32, y: Int32, data: [UInt8])] = []
        var symbol = zbar_image_first_symbol(image)
        while let current = symbol {
            if let data = zbar_symbol_get_data(current) {
                let length = Int(zbar_symbol_get_data_length(current))
                let bytes = data.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
                let corners = (0..<zbar_symbol_get_loc_size(current))
                let x = corners.map { zbar_symbol_get_loc_x(current, $0) }.min() ?? 0
                let y = corners.map { zbar_symbol_get_loc_y(current, $0) }.min() ?? 0
                found.append((x, y, bytes))
            }
            symbol = zbar_symbol_next(current)
        }
        return found.sorted { ($0.x, $0.y) < ($1.x, $1.y) }.map(\.data)
    }
}
