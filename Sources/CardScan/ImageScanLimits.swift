/// The most an image file may ask of the scanner before it is refused, whatever its header claims.
///
/// The defaults take any phone photo or screenshot (a 48-megapixel camera writes 8000 × 6000) and hold
/// a hostile file to about 64 MB of input, 40 MB of pixels and 512 MB of JPEG decoder memory.
public struct ImageScanLimits: Sendable, Hashable {
    /// Bytes of the file itself.
    public var maxFileBytes: Int = 64 << 20
    /// Pixels on either side.
    public var maxSide: UInt32 = 16_384
    /// Width × height.
    public var maxPixels: UInt64 = 48_000_000
    /// Memory libjpeg may take (a progressive JPEG keeps every coefficient until its last scan).
    public var maxDecoderBytes: UInt64 = 512 << 20
    /// Scans of a progressive JPEG; cameras write about ten, a hostile file thousands.
    public var maxJPEGScans: UInt32 = 1_000

    public init() {}
}
