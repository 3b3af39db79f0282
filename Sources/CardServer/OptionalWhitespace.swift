extension Substring {
    /// The text without the optional whitespace around it (spaces and tabs: OWS, RFC 9110 §5.6.3), as a header
    /// field's value is read. Foundation's `trimmingCharacters(in:)` goes through `NSString` on Linux and took a
    /// twentieth of a warm `card.png` in the authenticator, which trims every request's secret.
    var trimmingOptionalWhitespace: Substring {
        let utf8 = self.utf8
        var (start, end) = (utf8.startIndex, utf8.endIndex)
        while start < end, Self.isOptionalWhitespace(utf8[start]) { start = utf8.index(after: start) }
        while start < end, case let last = utf8.index(before: end), Self.isOptionalWhitespace(utf8[last]) { end = last }
        return self[start..<end]
    }

    private static func isOptionalWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }
}
