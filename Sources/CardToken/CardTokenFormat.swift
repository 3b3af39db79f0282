/// Constants of the `PEEZ1` text form.
public enum CardTokenFormat {
    /// Every token starts with this text.
    public static let prefix = "PEEZ1:"
    static let prefixBytes: [UInt8] = Array(prefix.utf8)
    /// The longest Base45 text that can decode within the CBOR size limit (2,048 bytes → 3,072 characters).
    public static let maxBase45Length = (CBORDecoder.Limits.cardToken.maxBytes + 1) / 2 * 3
    /// The longest text a card or a presentation can be, prefix included.
    public static let maxTokenLength = Presentation.prefix.utf8.count + maxBase45Length
}
