public import Foundation

/// Members' current cards, kept so that a card is signed once per change of what it shows.
public protocol CardStore: Sendable {
    /// The member's stored card, if it is still current (nothing it shows has changed since it was made).
    func card(memberUUID: UUID) async throws -> StoredCard?
    /// What to sign the member's card from: the head of the ledger, marked with when it was read. Nil for an
    /// unknown member.
    func cardBasis(memberUUID: UUID) async throws -> CardBasis?
    /// Keeps `card`, signed from `basis`, if the member's ledger is still at the basis's version (compare and
    /// set), and returns the card now kept for the member: this one, or the one another read kept for that
    /// version first. Keeping a card records its `iat` in the member's row, so a later revoking change covers
    /// it (``CardRevocationRule``): only a card this returns may be answered. Throws ``LedgerVersionConflict``
    /// when the member changed after the basis was read (sign again from a new basis). A card is kept to be
    /// served again, not for the record: the write need not wait for the disk, and a card lost in a crash is
    /// signed again.
    func keepCard(_ card: StoredCard, signedFrom basis: CardBasis) async throws -> StoredCard
    /// Keeps the picture of `card` (rendered since it was kept) with it, and returns the card as it now stands
    /// (as given, if the member's card has changed meanwhile). Not durable either: a picture lost is drawn again.
    func keepPicture(of card: StoredCard) async throws -> StoredCard
}

/// The head of a member's ledger a card is signed from, and the store's mark of when it was read.
public struct CardBasis: Sendable, Hashable {
    public let head: LedgerHead
    /// The store's own mark (opaque to callers): changes heard after it keep the card out of memory.
    public let readMark: UInt64

    public init(head: LedgerHead, readMark: UInt64) {
        self.head = head
        self.readMark = readMark
    }
}
