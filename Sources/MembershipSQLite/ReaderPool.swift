import Synchronization

/// The reader connections, lent one at a time to a read: a free one at once, without suspending; when every
/// reader is lent, the read waits for the first one given back (readers outnumber the cooperative threads that
/// run reads inline, so that is rare).
///
/// Reads by key run inline on the request's thread (see ``SQLiteDatabase/read(_:)``), so their pool must cost
/// next to nothing: an actor's lock per reader (the earlier pool) hopped to the actor and back twice a read and,
/// when two reads picked the same reader in turn, parked one while another reader was free.
final class ReaderPool: Sendable {
    private struct State {
        var free: [Int]
        var waiting: [CheckedContinuation<Int, Never>] = []
    }

    private let connections: [SQLiteConnection]
    private let state: Mutex<State>

    init(_ connections: [SQLiteConnection]) {
        precondition(!connections.isEmpty, "a pool needs a connection")
        self.connections = connections
        self.state = Mutex(State(free: Array(connections.indices)))
    }

    /// Runs `body` on a reader lent to it alone, and gives the reader back whatever `body` does.
    func withReader<T>(_ body: (SQLiteConnection) async throws -> T) async throws -> T {
        let index = await borrow()
        defer { giveBack(index) }
        return try await body(connections[index])
    }

    private func borrow() async -> Int {
        if let index = state.withLock({ $0.free.popLast() }) { return index }
        return await withCheckedContinuation { (waiter: CheckedContinuation<Int, Never>) in
            // A reader given back between the two locks goes to this read at once.
            let index: Int? = state.withLock { state in
                if let index = state.free.popLast() { return index }
                state.waiting.append(waiter)
                return nil
            }
            if let index { waiter.resume(returning: index) }
        }
    }

    private func giveBack(_ index: Int) {
        let waiter: CheckedContinuation<Int, Never>? = state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.free.append(index)
                return nil
            }
            return state.waiting.removeFirst()
        }
        waiter?.resume(returning: index)
    }
}
