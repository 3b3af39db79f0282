import Membership

/// The one retry loop of the ledger's use cases: a use case worked out on a head another writer has since moved
/// (``LedgerVersionConflict``) is worked out again on a fresh read, a bounded number of times.
enum LedgerRetry {
    /// How many times a use case is worked out before the caller is told to retry.
    static let attempts = 50

    /// Runs `attempt` (numbered from 1) until it does not end in ``LedgerVersionConflict``, pausing a short random
    /// while between tries so that writers that collided do not collide again in step. Throws `conflict` when
    /// every attempt collided.
    static func run<T>(_ attempt: (_ number: Int) async throws -> T) async throws -> T {
        for number in 1...attempts {
            do {
                return try await attempt(number)
            } catch is LedgerVersionConflict where number < attempts {
                try await Task.sleep(nanoseconds: UInt64.random(in: 0...UInt64(min(number, 10) * 200_000)))
            } catch is LedgerVersionConflict {
                break
            }
        }
        throw MembershipError(.conflict, "The member's ledger kept changing while this was being recorded; retry.")
    }
}
