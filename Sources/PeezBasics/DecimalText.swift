/// Decimal numbers as text without `String(format:)`, which reads locale files on every call on Linux.
public enum DecimalText {
    /// `value` in decimal, left-padded with zeros to at least `width` digits (`zeroPadded(42, width: 5)` is `00042`).
    public static func zeroPadded(_ value: some BinaryInteger, width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
