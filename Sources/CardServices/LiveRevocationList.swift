import CardToken
import CardWire
import Membership
import Synchronization

/// The ledger's revocation list, kept parsed between verifications. Each read asks the store only for the changes
/// after the version it holds (an indexed read of nothing, most of the time) and adds them, so a verification
/// costs the same at 0 or 100,000 revocations, and every instance sees each revocation committed before the read,
/// as a full read would.
final class LiveRevocationList: Sendable {
    private struct Held {
        var version: Int64
        var list: RevocationList
    }

    private let held = Mutex<Held?>(nil)

    init() {}

    /// The list as of now: what is held, with the changes committed since.
    func current(from store: any RevocationStore) async throws -> RevocationList {
        let before = held.withLock { $0 }
        let snapshot = try await store.revocations(since: before?.version)
        let changes = try RevocationListDocument(snapshot).revocationList()
        var list = changes
        if snapshot.since != nil, let before {
            // Added to only when something changed: adding nothing would still copy the whole list.
            list = before.list
            if !changes.revokedTokenIDs.isEmpty { list.revokedTokenIDs.formUnion(changes.revokedTokenIDs) }
            if !changes.revokedBefore.isEmpty { list.revokedBefore.merge(changes.revokedBefore) { max($0, $1) } }
        }
        // Kept unless another read already kept a newer version; both hold every change up to their own.
        held.withLock { kept in
            if (kept?.version ?? -1) < snapshot.version { kept = Held(version: snapshot.version, list: list) }
        }
        return list
    }
}
