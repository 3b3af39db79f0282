import PeezBasics

/// How a change that revokes a member's cards (a cancellation, a new or removed phone key) covers every card
/// signed from the member's earlier states, whatever the clock says, and how cards signed afterwards stay clear
/// of it.
///
/// A counter refuses a card of the member whose `iat` is before the change's `revoked_before` (strictly, as the
/// card token specification says). So `revoked_before` is later than every card the service ever answered for
/// the member (the store keeps the newest `iat` it answered in the member's row, compare-and-set with the card)
/// and later than the change's own second; and every card signed after the change is dated no earlier than it.
/// Two changes in one second, a card read in the same second as a change, or a clock that steps back then leave
/// no old card valid and no new card refused.
public enum CardRevocationRule {
    /// The `revoked_before` of a change made at `now` to a member whose newest answered card was issued at
    /// `lastCardIssuedAt` and whose cards are valid from `cardsValidFrom` (the previous change's
    /// `revoked_before`, 0 before any).
    public static func revokedBefore(now: Int64, lastCardIssuedAt: Int64, cardsValidFrom: Int64) -> Int64 {
        max(now.addingClamped(1), lastCardIssuedAt.addingClamped(1), cardsValidFrom)
    }

    /// The `iat` of a card signed at `now` for a member whose cards are valid from `cardsValidFrom`: never
    /// before it (at most a second ahead of the clock, unless the clock stepped back).
    public static func issuedAt(now: Int64, cardsValidFrom: Int64) -> Int64 {
        max(now, cardsValidFrom)
    }
}
