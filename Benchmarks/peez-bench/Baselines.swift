import CPeezImageReader
import CPeezOpenSSL
import CPeezPNG
import CPeezQRencode

/// The reference points, written against the C libraries directly with nothing of this project between.
enum Baselines {
    /// OpenSSL's one-shot Ed25519 signature, as the EVP manual describes it.
    static func rawSign(_ pkey: OpaquePointer, _ message: [UInt8]) -> Int {
        let context = EVP_MD_CTX_new()
        defer { EVP_MD_CTX_free(context) }
        var signature = [UInt8](repeating: 0, count: 64)
        var length = 64
        EVP_DigestSignInit(context, nil, nil, nil, pkey)
        EVP_DigestSign(context, &signature, &length, message, message.count)
        return length
    }

    /// OpenSSL's one-shot Ed25519 verification.
    static func rawVerify(_ pkey: OpaquePointer, _ signature: [UInt8], _ message: [UInt8]) -> Bool {
        let context = EVP_MD_CTX_new()
        defer { EVP_MD_CTX_free(context) }
        EVP_DigestVerifyInit(context, nil, nil, nil, pkey)
        return EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
    }

    /// A private key parsed by OpenSSL itself.
    static func loadPrivateKey(_ pem: String) -> OpaquePointer {
        let bytes = Array(pem.utf8)
        let bio = BIO_new_mem_buf(bytes, Int32(bytes.count))
        defer { BIO_free(bio) }
        return PEM_read_bio_PrivateKey(bio, nil, nil, nil)!
    }

    /// libqrencode's matrix alone, with its default automatic mode selection.
    static func matrixOnly(_ text: String) -> Int {
        let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1)!
        defer { QRcode_free(code) }
        return Int(code.pointee.width)
    }

    /// A plain libqrencode + libpng pipeline with default settings: an 8-bit greyscale picture written with
    /// libpng's simplified API at its default compression. The pipeline the "about 960 a second" names.
    static func plainPNG(_ text: String, moduleSize: Int, quietZone: Int) -> Int {
        let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1)!
        defer { QRcode_free(code) }
        let size = Int(code.pointee.width)
        let side = (size + 2 * quietZone) * moduleSize
        var pixels = [UInt8](repeating: 0xFF, count: side * side)
        for y in 0..<size {
            for x in 0..<size where code.pointee.data[y * size + x] & 1 == 1 {
                for dy in 0..<moduleSize {
                    let row = ((y + quietZone) * moduleSize + dy) * side
                    for dx in 0..<moduleSize { pixels[row + (x + quietZone) * moduleSize + dx] = 0 }
                }
            }
        }
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(side)
        image.height = UInt32(side)
        image.format = UInt32(PNG_FORMAT_GRAY)
        var length: png_alloc_size_t = 0
        png_image_write_to_memory(&image, nil, &length, 0, pixels, 0, nil)
        var output = [UInt8](repeating: 0, count: Int(length))
        png_image_write_to_memory(&image, &output, &length, 0, pixels, 0, nil)
        png_image_free(&image)
        return Int(length)
    }

    /// Decodes a PNG or JPEG to greyscale and drops it: the image-reading part of a scan.
    static func decodeOnly(_ bytes: [UInt8]) {
        var image = peez_gray_image()
        var message: UnsafePointer<CChar>?
        let limits = peez_image_limits(max_side: 16_384, max_pixels: 48_000_000, max_decoder_bytes: 512 << 20, max_jpeg_scans: 1_000)
        _ = bytes.withUnsafeBufferPointer { peez_image_decode($0.baseAddress, $0.count, limits, &image, &message) }
        peez_gray_image_free(&image)
    }
}
