/// An error thrown by the ``CardQR`` module: a stable ``code`` and a reason a person can act on.
public struct CardQRError: Error, Hashable, CustomStringConvertible, Sendable {
    /// The kind of error.
    public let code: Code
    /// What went wrong.
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }

    public static func == (lhs: CardQRError, rhs: CardQRError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// A stable error code: an opaque struct over a private enum, so cases can be added later.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Backing: String, Hashable, Sendable {
            case notAlphanumeric, tooLong, encoderFailed, invalidOptions, pngFailed
        }
        private let backing: Backing
        private init(_ backing: Backing) { self.backing = backing }
        public var description: String { backing.rawValue }

        /// The text has a character outside QR alphanumeric mode (0-9, A-Z, space, $%*+-./:).
        public static let notAlphanumeric = Code(.notAlphanumeric)
        /// The text does not fit in the largest QR symbol at this error-correction level.
        public static let tooLong = Code(.tooLong)
        /// libqrencode failed for another reason.
        public static let encoderFailed = Code(.encoderFailed)
        /// A rendering option is out of range.
        public static let invalidOptions = Code(.invalidOptions)
        /// libpng failed.
        public static let pngFailed = Code(.pngFailed)
    }
}
