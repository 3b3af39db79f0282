/// A lock for async code: holders take turns in arrival order, and waiting suspends instead of blocking a thread.
public actor AsyncLock {
    public init() {}

    private var isLocked = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    public func lock() async {
        guard isLocked else {
            isLocked = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    public func unlock() {
        if waiters.isEmpty {
            isLocked = false
        } else {
            waiters.removeFirst().resume()
        }
    }

    /// Runs `body` holding the lock.
    public nonisolated func withLock<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await lock()
        do {
            let value = try await body()
            await unlock()
            return value
        } catch {
            await unlock()
            throw error
        }
    }
}
