public import Foundation
import Synchronization

/// Ledger changes committed by any process on a shared database, announced as the driver hears them.
///
/// The driver publishes; the store subscribes, to keep cards in memory only while every change is heard.
public final class MemberChangeFeed: Sendable {
    public enum Event: Sendable, Hashable {
        /// Listening: from now on every committed change is announced.
        case listening
        /// A member's ledger changed (committed, by any process).
        case changed(UUID)
        /// A credential was revoked or given an end (committed, by any process): the hash of its secret.
        case credentialChanged(secretHash: String)
        /// No longer listening: changes may go unannounced until `listening` comes again.
        case interrupted
    }

    private struct State {
        var isListening = false
        var subscribers: [@Sendable (Event) -> Void] = []
    }

    private let state = Mutex(State())

    public init() {}

    /// Whether changes are being heard now.
    public var isListening: Bool { state.withLock { $0.isListening } }

    /// Calls `handler` with every event from now on, first with `listening` if the feed already is.
    /// Handlers run in the order of events, one at a time, and must not call back into the feed.
    public func subscribe(_ handler: @escaping @Sendable (Event) -> Void) {
        state.withLock { state in
            state.subscribers.append(handler)
            if state.isListening { handler(.listening) }
        }
    }

    /// Announces `event` to every subscriber (the driver's side).
    public func publish(_ event: Event) {
        state.withLock { state in
            switch event {
            case .listening: state.isListening = true
            case .interrupted: state.isListening = false
            case .changed, .credentialChanged: break
            }
            for handler in state.subscribers { handler(event) }
        }
    }
}
