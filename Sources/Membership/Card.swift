public import Foundation

/// A signed card as issued and kept: the token and, once asked for, its rendered QR picture.
///
/// A card is signed when the member's coverage changes, rendered the first time it is shown, then served as it is.
public struct StoredCard: Sendable, Hashable {
    public var memberUUID: UUID
    /// The token id (`cti`), hex.
    public var tokenID: String
    /// The `PEEZ1:` text.
    public var token: String
    /// The QR code as PNG; nil until the card is first asked for as a picture (a sale's answer needs none).
    public var png: [UInt8]?
    public var issuedAt: Int64
    /// The token's `exp`.
    public var expiresAt: Int64
    /// The coverage end the card was made for (nil: no paid time), to tell whether it is still current.
    public var coverageEnd: Int64?

    public init(memberUUID: UUID, tokenID: String, token: String, png: [UInt8]?, issuedAt: Int64, expiresAt: Int64, coverageEnd: Int64?) {
        self.memberUUID = memberUUID
        self.tokenID = tokenID
        self.token = token
        self.png = png
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.coverageEnd = coverageEnd
    }
}
