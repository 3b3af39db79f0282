import CPeezZlib

/// gzip (RFC 1952) through zlib, for files compressed once when the service starts.
enum Gzip {
    /// `bytes` gzip-compressed at the best level, or nil if zlib fails.
    static func compress(_ bytes: [UInt8]) -> [UInt8]? {
        var stream = z_stream()
        // 15 + 16: a 32 KiB window with a gzip header and trailer.
        guard
            deflateInit2_(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
                == Z_OK
        else { return nil }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(bytes.count))) + 32)
        var input = bytes
        let result = input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = source.baseAddress
                stream.avail_in = UInt32(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = UInt32(target.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard result == Z_STREAM_END else { return nil }
        return Array(output.prefix(Int(stream.total_out)))
    }
}
