import Foundation
import Synchronization

/// Token buckets: one per client address and one for everyone, refilled continuously. A request takes a token
/// from both or is refused; a client's bucket is forgotten once full again, so an address costs memory only
/// while it is busy.
final class RateLimiter: Sendable {
    struct Rate: Sendable {
        /// Tokens added per second.
        var perSecond: Double
        /// The most tokens a bucket holds: the burst allowed after a quiet while.
        var burst: Double
    }

    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private struct State {
        var overall: Bucket
        var clients: [String: Bucket] = [:]
    }

    let perClient: Rate
    let overall: Rate
    /// Addresses tracked at once: past it the fullest-looking are forgotten (a flood of addresses is still held
    /// by the overall bucket).
    static let maxClients = 10_000
    private let state: Mutex<State>

    init(perClient: Rate, overall: Rate) {
        self.perClient = perClient
        self.overall = overall
        state = Mutex(State(overall: Bucket(tokens: overall.burst, updated: .now)))
    }

    /// Whether `client` may make a request now (and if so, its tokens are taken).
    func allow(_ client: String, now: ContinuousClock.Instant = .now) -> Bool {
        state.withLock { state in
            var shared = Self.refilled(state.overall, rate: overall, now: now)
            var own = Self.refilled(state.clients[client] ?? Bucket(tokens: perClient.burst, updated: now), rate: perClient, now: now)
            guard shared.tokens >= 1, own.tokens >= 1 else {
                state.overall = shared
                state.clients[client] = own
                return false
            }
            shared.tokens -= 1
            own.tokens -= 1
            state.overall = shared
            if state.clients.count >= Self.maxClients, state.clients[client] == nil {
                state.clients = state.clients.filter { Self.refilled($0.value, rate: perClient, now: now).tokens < perClient.burst }
                if state.clients.count >= Self.maxClients { state.clients.removeAll(keepingCapacity: true) }
            }
            state.clients[client] = own
            return true
        }
    }

    private static func refilled(_ bucket: Bucket, rate: Rate, now: ContinuousClock.Instant) -> Bucket {
        let elapsed = bucket.updated.duration(to: now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Bucket(tokens: min(rate.burst, bucket.tokens + max(0, seconds) * rate.perSecond), updated: now)
    }
}
