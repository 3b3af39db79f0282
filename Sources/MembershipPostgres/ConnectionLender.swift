import Membership
import NIOCore
import PostgresNIO
import Synchronization

/// The pool's connections, lent to one caller at a time, with a bound on the wait for one.
///
/// PostgresNIO's pool lets a lease wait for as long as the server is away (it gives up after a minute, and that
/// cannot be set), so a request would wait as long, and a service told to stop would wait for the request. Here
/// each of the pool's connections is leased once, by a task of its own (``hold(_:)``), for as long as it stays
/// open, and lent from here. A caller waits at most ``maximumWait`` while no connection is open after the server
/// was reached (it went away) and is then told the store is unavailable; otherwise (connections open but all
/// lent, or the pool still opening its first) it waits its turn, up to ``busyWait``; a caller whose task is cancelled stops waiting at once; a connection that
/// has closed is not lent again. Callers are served in the order they came.
final class ConnectionLender: Sendable {
    /// How long a caller waits for a connection while none is open, before it is told the store is unavailable.
    let maximumWait: Duration
    /// How long a caller waits at most while connections are open but all lent.
    static let busyWait: Duration = .seconds(60)
    /// The server, as errors name it ("PostgreSQL at db:5432").
    let server: String
    private let state = Mutex(State())

    init(maximumWait: Duration, server: String) {
        self.maximumWait = maximumWait
        self.server = server
    }

    /// Runs `body` with a connection lent to it alone until it returns.
    func withConnection<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let connection = try await borrow()
        defer { giveBack(connection) }
        return try await body(connection)
    }

    /// Lends `connection` until it closes (the server went away, or the pool closed it) or the task is cancelled,
    /// which closes it: a holder of the pool's lease returns at once when the service stops.
    func hold(_ connection: PostgresConnection) async {
        state.withLock { state in
            state.open += 1
            state.everOpened = true
        }
        defer { state.withLock { $0.open -= 1 } }
        giveBack(connection)
        await withTaskCancellationHandler {
            await withCheckedContinuation { (closed: CheckedContinuation<Void, Never>) in
                connection.closeFuture.whenComplete { _ in closed.resume() }
            }
        } onCancel: {
            connection.close().whenComplete { _ in }
        }
        state.withLock { $0.idle.removeAll { $0 === connection } }
    }

    /// Tells each caller that has waited ``maximumWait`` that the store is unavailable, until the task is
    /// cancelled; then tells every caller still waiting, and every later one, that the store is closed.
    func run() async {
        let tick = min(max(maximumWait / 20, .milliseconds(10)), .milliseconds(250))
        while !Task.isCancelled {
            try? await Task.sleep(for: tick)
            let expired = state.withLock { state in
                // The short wait only once the server was reached and then lost: a pool still opening its first
                // connections on a loaded machine is busy, not away (peez serve checks the server at start).
                state.waiters.removeExpired(at: .now, serverAway: state.everOpened && state.open == 0)
            }
            for waiter in expired { waiter.continuation.resume(throwing: unavailable) }
        }
        let waiting = state.withLock { state in
            state.closed = true
            state.idle = []
            return state.waiters.removeAll()
        }
        for waiter in waiting { waiter.continuation.resume(throwing: closed) }
    }

    private func borrow() async throws -> PostgresConnection {
        let ticket = state.withLock { state -> Ticket in
            if let connection = state.takeIdle() { return .lent(connection) }
            if state.closed { return .closed }
            state.lastTicket += 1
            return .wait(state.lastTicket)
        }
        let id: UInt64
        switch ticket {
        case .lent(let connection): return connection
        case .closed: throw closed
        case .wait(let ticket): id = ticket
        }
        let deadline = ContinuousClock.now + maximumWait
        let busyDeadline = ContinuousClock.now + Self.busyWait
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<PostgresConnection, any Error>) in
                let now = state.withLock { state -> Result<PostgresConnection, any Error>? in
                    if let connection = state.takeIdle() { return .success(connection) }
                    if state.closed { return .failure(closed) }
                    // Cancelled before it queued: the cancellation handler found nothing to remove.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters.append(Waiter(id: id, deadline: deadline, busyDeadline: busyDeadline, continuation: continuation))
                    return nil
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            state.withLock { $0.waiters.remove(id) }?.continuation.resume(throwing: CancellationError())
        }
    }

    /// A connection back from a caller (or new from the pool): to the first caller waiting, else kept idle.
    private func giveBack(_ connection: PostgresConnection) {
        let waiter = state.withLock { state -> Waiter? in
            guard !connection.isClosed, !state.closed else { return nil }
            if let waiter = state.waiters.removeFirst() { return waiter }
            state.idle.append(connection)
            return nil
        }
        waiter?.continuation.resume(returning: connection)
    }

    private var unavailable: MembershipError {
        MembershipError(
            .storeUnavailable,
            "\(server) gave no connection within \(maximumWait) (it is down or unreachable), or none came free within \(Self.busyWait); nothing was done: "
                + "send the request again in a moment."
        )
    }

    private var closed: MembershipError {
        MembershipError(.storeUnavailable, "The service is stopping and has closed its connections to \(server); send the request again in a moment.")
    }

    private enum Ticket {
        case lent(PostgresConnection)
        case closed
        case wait(UInt64)
    }

    private struct Waiter {
        let id: UInt64
        /// When to give up while no connection is open.
        let deadline: ContinuousClock.Instant
        /// When to give up whatever.
        let busyDeadline: ContinuousClock.Instant
        let continuation: CheckedContinuation<PostgresConnection, any Error>
    }

    private struct State {
        var idle: [PostgresConnection] = []
        var waiters = WaitQueue()
        var lastTicket: UInt64 = 0
        /// The service stopped: nothing is lent any more.
        var closed = false
        /// The pool's connections held open now (lent or idle).
        var open = 0
        /// Whether a connection was ever open.
        var everOpened = false

        /// An idle connection that is still open (one that closed meanwhile is left to its holder).
        mutating func takeIdle() -> PostgresConnection? {
            while let connection = idle.popLast() {
                if !connection.isClosed { return connection }
            }
            return nil
        }
    }

    /// Callers waiting, oldest first. Each waits as long as the others, so the expired ones are always the oldest;
    /// one that stops waiting (its task cancelled) leaves a hole, skipped later.
    private struct WaitQueue {
        private var slots: [Waiter?] = []
        private var head = 0

        mutating func append(_ waiter: Waiter) { slots.append(waiter) }

        mutating func removeFirst() -> Waiter? {
            while head < slots.count {
                let waiter = slots[head]
                slots[head] = nil
                head += 1
                if let waiter {
                    compact()
                    return waiter
                }
            }
            compact()
            return nil
        }

        mutating func remove(_ id: UInt64) -> Waiter? {
            guard let index = slots[head...].firstIndex(where: { $0?.id == id }) else { return nil }
            defer { slots[index] = nil }
            return slots[index]
        }

        /// The oldest waiters past their deadline: the short one while the server is away, else the busy one.
        mutating func removeExpired(at now: ContinuousClock.Instant, serverAway: Bool) -> [Waiter] {
            var expired: [Waiter] = []
            while head < slots.count, slots[head].map({ (serverAway ? $0.deadline : $0.busyDeadline) <= now }) ?? true {
                if let waiter = slots[head] { expired.append(waiter) }
                slots[head] = nil
                head += 1
            }
            compact()
            return expired
        }

        mutating func removeAll() -> [Waiter] {
            defer {
                slots.removeAll(keepingCapacity: true)
                head = 0
            }
            return slots[head...].compactMap { $0 }
        }

        /// Drops the slots already served once they are half the array.
        private mutating func compact() {
            if head == slots.count {
                slots.removeAll(keepingCapacity: true)
                head = 0
            } else if head > 64 && head * 2 > slots.count {
                slots.removeFirst(head)
                head = 0
            }
        }
    }
}
