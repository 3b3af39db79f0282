/// Why an image could not be scanned for QR codes. "No QR code in it" is not an error: the scan finds none.
public struct ImageScanError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, for callers that act on it.
    public enum Kind: Sendable, Equatable {
        /// The file could not be opened or read.
        case unreadable
        /// Neither a PNG nor a JPEG.
        case notAnImage
        /// Bigger (in bytes, pixels or decoder memory) than any photo of a card needs.
        case tooLarge
        /// Cut short or corrupt.
        case damaged
        /// The machine ran out of memory.
        case outOfMemory
    }

    public let kind: Kind
    public let description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}
