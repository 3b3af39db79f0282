public import Foundation

/// Members' current cards, kept so that a card is signed once per change of what it shows.
public protocol CardStore: Sendable {
    /// The member's stored card, if it is still current (nothing it shows has changed since it was made).
    func card(memberUUID: UUID) async throws -> StoredCard?
    /// Keeps `card` as made for the ledger at `version`, unless a card for that version or a later one is kept,
    /// and returns the card now kept for the member (this one, or the one that was there first). A card is kept
    /// to be served again, not for the record: the write need not wait for the disk, and a card lost in a crash
    /// is signed again.
    func keepCard(_ card: StoredCard, forVersion version: Int64) async throws -> StoredCard
    /// Keeps the picture of `card` (rendered since it was kept) with it, and returns the card as it now stands
    /// (as given, if the member's card has changed meanwhile). Not durable either: a picture lost is drawn again.
    func keepPicture(of card: StoredCard) async throws -> StoredCard
}
