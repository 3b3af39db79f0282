import Synchronization

/// Group commit: batches of statements that arrive while a commit is under way wait together, and the next
/// committer writes all of them in one transaction, so they share its round trips and its one flush to disk.
///
/// A driver queues a batch with ``enqueue(_:)`` and then, holding whatever makes it the only committer, calls
/// ``commitUntilSettled(_:with:)``: its batch may already have been committed by an earlier committer's group;
/// if not, it commits the waiting batches (its own among them), a bounded group at a time. The driver's
/// `commit` answers every batch of a group, and must answer success only for a batch whose transaction has
/// committed: each caller is answered only then, so an answered batch is durable.
public final class GroupCommit: Sendable {
    /// One batch and, once its group has been committed or has failed, its result.
    public final class Batch: Sendable {
        public let statements: [SQLStatement]
        fileprivate let bindCount: Int
        fileprivate let claim: SQLClaim?
        private let outcome = Mutex<Result<Void, any Error>?>(nil)

        fileprivate init(_ statements: [SQLStatement]) {
            self.statements = statements
            self.bindCount = statements.reduce(0) { $0 + $1.binds.count }
            self.claim = statements.lazy.compactMap(\.claim).first
        }

        fileprivate var result: Result<Void, any Error>? { outcome.withLock { $0 } }
        fileprivate func settle(_ result: Result<Void, any Error>) { outcome.withLock { $0 = result } }
    }

    /// The most batches one transaction takes: a bound on how long the first of them waits for its answer.
    public let maxBatches: Int
    /// The most bind values one group holds (PostgreSQL takes at most 65,535 in a statement); a single batch
    /// over it still commits, alone.
    public let maxBinds: Int

    private let waiting = Mutex<[Batch]>([])
    /// The claims of the latest committed batches (see ``SQLClaim``), oldest first, at most ``claimsKept``.
    private let taken = Mutex<(keys: Set<String>, order: [String])>(([], []))
    /// Claims remembered: one older than these is left to the database to refuse.
    static let claimsKept = 65_536

    public init(maxBatches: Int = 256, maxBinds: Int = 30_000) {
        precondition(maxBatches > 0 && maxBinds > 0, "a group takes at least one batch")
        self.maxBatches = maxBatches
        self.maxBinds = maxBinds
    }

    /// Queues `statements` to be committed by the next group.
    public func enqueue(_ statements: [SQLStatement]) -> Batch {
        let batch = Batch(statements)
        waiting.withLock { $0.append(batch) }
        return batch
    }

    /// Commits groups of waiting batches with `commit` until `batch` has its result, and returns it. `commit`
    /// gets each batch's statements, oldest batch first, and returns one result per batch, in the same order.
    /// The caller must be the only one committing while this runs.
    public func commitUntilSettled(
        _ batch: Batch,
        with commit: ([[SQLStatement]]) async -> [Result<Void, any Error>]
    ) async -> Result<Void, any Error> {
        while true {
            if let result = batch.result { return result }
            // A batch whose claim a committed batch took would be refused: it fails without being sent.
            var group: [Batch] = []
            for member in nextGroup() {
                if let claim = member.claim, taken.withLock({ $0.keys.contains(claim.key) }) {
                    member.settle(.failure(claim.refusal))
                } else {
                    group.append(member)
                }
            }
            guard !group.isEmpty else { continue }
            let results = await commit(group.map(\.statements))
            precondition(results.count == group.count, "a group commit answers every batch")
            for (member, result) in zip(group, results) {
                member.settle(result)
                if case .success = result, let claim = member.claim { remember(claim.key) }
            }
        }
    }

    private func remember(_ key: String) {
        taken.withLock { taken in
            guard taken.keys.insert(key).inserted else { return }
            taken.order.append(key)
            if taken.order.count > Self.claimsKept {
                let dropped = taken.order.prefix(taken.order.count / 2)
                taken.keys.subtract(dropped)
                taken.order.removeFirst(dropped.count)
            }
        }
    }

    /// The oldest waiting batches, within the bounds (always at least one while any waits); a batch holding a
    /// claim another of the group holds waits for the next group, in its place.
    private func nextGroup() -> [Batch] {
        waiting.withLock { queue in
            var group: [Batch] = []
            var left: [Batch] = []
            var claims: Set<String> = []
            var binds = 0
            var index = 0
            while index < queue.count, group.count < maxBatches {
                let batch = queue[index]
                index += 1
                if let claim = batch.claim, claims.contains(claim.key) {
                    left.append(batch)
                    continue
                }
                guard group.isEmpty || binds + batch.bindCount <= maxBinds else {
                    index -= 1
                    break
                }
                if let claim = batch.claim { claims.insert(claim.key) }
                group.append(batch)
                binds += batch.bindCount
            }
            queue = left + queue[index...]
            return group
        }
    }
}
