import Foundation
import Membership
import Synchronization

/// Current cards kept in memory, so a card read costs no database round trip. Used only on a database that
/// announces every committed ledger change (``MemberChangeFeed``), and only while it is listening.
///
/// A card read from the database is kept only if no change was heard while it was being read: take a
/// ``Ticket`` before the read and hand it back with the card. Across service instances a card can be served
/// for as long as a change takes to be announced (a notification's trip, about a millisecond on a LAN).
final class CardCache: Sendable {
    /// The cache's state when a read began.
    struct Ticket { let generation: UInt64 }

    private struct State {
        var cards: [UUID: StoredCard] = [:]
        /// Bumped by every change heard, so a read that overlapped one is not kept.
        var generation: UInt64 = 0
        var isListening = false
    }

    private let state = Mutex(State())
    /// The most cards kept; past it, an arbitrary one makes room.
    let capacity: Int

    init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    /// The member's card, if kept.
    func card(for member: UUID) -> StoredCard? {
        state.withLock { $0.isListening ? $0.cards[member] : nil }
    }

    func ticket() -> Ticket {
        state.withLock { Ticket(generation: $0.generation) }
    }

    /// Keeps `card`, read from the database after `ticket` was taken, unless a change was heard since.
    func keep(_ card: StoredCard, readAfter ticket: Ticket) {
        state.withLock { state in
            guard state.isListening, state.generation == ticket.generation else { return }
            if state.cards[card.memberUUID] == nil, state.cards.count >= capacity {
                state.cards.remove(at: state.cards.startIndex)
            }
            state.cards[card.memberUUID] = card
        }
    }

    /// Drops the member's card: its ledger changed.
    func forget(_ member: UUID) {
        state.withLock { state in
            state.generation &+= 1
            state.cards[member] = nil
        }
    }

    var count: Int { state.withLock { $0.cards.count } }

    func apply(_ event: MemberChangeFeed.Event) {
        switch event {
        case .changed(let member):
            forget(member)
        case .credentialChanged:
            break
        case .listening, .interrupted:
            // Changes may have gone unheard: start afresh, and keep nothing while not listening.
            state.withLock { state in
                state.generation &+= 1
                state.cards.removeAll()
                state.isListening = event == .listening
            }
        }
    }
}
