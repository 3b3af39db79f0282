/// An 8-bit greyscale PNG written byte by byte (its zlib stream in stored blocks, no compression), so a test
/// can hand the scanner a picture with real greys: a QR code scaled down as a phone camera sees a screen.
enum GreyPNG {
    static func encode(_ pixels: [UInt8], width: Int, height: Int) -> [UInt8] {
        var raw: [UInt8] = []
        raw.reserveCapacity((width + 1) * height)
        for y in 0..<height {
            raw.append(0)  // filter: none
            raw += pixels[(y * width)..<((y + 1) * width)]
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let block = raw[offset..<min(offset + 65_535, raw.count)]
            offset += block.count
            let length = UInt16(block.count)
            zlib += [offset == raw.count ? 1 : 0, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
            zlib += block
        } while offset < raw.count
        zlib += bigEndian(adler32(raw))
        var header = bigEndian(UInt32(width)) + bigEndian(UInt32(height))
        header += [8, 0, 0, 0, 0]  // 8 bits, greyscale, deflate, adaptive filtering, no interlace
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", zlib) + chunk("IEND", [])
    }

    /// `pixels` (`side` × `side`) averaged over `factor` × `factor` blocks, as a box filter scales a picture down.
    static func scaledDown(_ pixels: [UInt8], side: Int, by factor: Int) -> (pixels: [UInt8], side: Int) {
        let small = side / factor
        var out = [UInt8](repeating: 255, count: small * small)
        for y in 0..<small {
            for x in 0..<small {
                var sum = 0
                for dy in 0..<factor { for dx in 0..<factor { sum += Int(pixels[(y * factor + dy) * side + x * factor + dx]) } }
                out[y * small + x] = UInt8(sum / (factor * factor))
            }
        }
        return (out, small)
    }

    private static func chunk(_ kind: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(kind.utf8) + data
        return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    private static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }
}
