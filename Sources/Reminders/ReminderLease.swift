public import Membership
import PeezBasics

/// A run's lease on one batch of reminders, kept long enough for every delivery it starts.
///
/// Another run may take a reminder once its lease has ended, so a delivery must end, and be recorded, before
/// that. A sink asks ``mayStart(_:)`` before each delivery: it is allowed while the lease has room for the
/// longest delivery and then time to record it (half of what the lease leaves beyond the longest delivery).
/// When the room runs out the lease is renewed, for the whole batch, in one statement: a batch larger than
/// one lease can deliver (a slow receiver, a prefetched batch waiting its turn) is never shared with another
/// run. A reminder whose lease was lost (it lapsed and another run took it) or cannot be renewed is not
/// started.
public actor ReminderLease {
    private let store: any ReminderStore
    private let owner: String
    private let leaseSeconds: Int64
    private let longestDeliverySeconds: Int64
    private let clock: WallClock
    private var held: Set<String>
    private var validUntil: Int64
    private var renewal: Task<Void, Never>?

    /// `validUntil` is when the lease taken on `ids` ends; `longestDeliverySeconds` what one delivery may take
    /// at most (``ReminderSink/longestDeliverySeconds``).
    public init(
        store: any ReminderStore,
        owner: String,
        ids: some Sequence<String>,
        validUntil: Int64,
        leaseSeconds: Int64,
        longestDeliverySeconds: Int64,
        clock: WallClock
    ) {
        self.store = store
        self.owner = owner
        self.held = Set(ids)
        self.validUntil = validUntil
        self.leaseSeconds = leaseSeconds
        self.longestDeliverySeconds = longestDeliverySeconds
        self.clock = clock
    }

    /// The shortest lease that leaves room for a delivery taking `longestDeliverySeconds` and then for
    /// recording it: a run whose lease is shorter could never start one.
    public static func shortestLease(forDeliveriesOf longestDeliverySeconds: Int64) -> Int64 {
        longestDeliverySeconds + 2
    }

    /// Whether the delivery of reminder `id` may start now: this run holds its lease, and the lease lasts
    /// until the delivery has ended and been recorded, renewed first if it would not.
    public func mayStart(_ id: String) async -> Bool {
        if !hasRoom() { await renew() }
        return held.contains(id) && hasRoom()
    }

    /// The clock counts whole seconds: `now` may be up to a second behind, hence the 1.
    private func hasRoom() -> Bool {
        let recording = (leaseSeconds - longestDeliverySeconds) / 2
        return clock() + 1 + longestDeliverySeconds + recording <= validUntil
    }

    /// One renewal at a time; deliveries asking meanwhile wait for it. A run that is cancelled (the service
    /// stopping) cancels the renewal with it: nothing more is started.
    private func renew() async {
        let running = renewal ?? Task { await self.renewNow() }
        renewal = running
        await running.cancellingValue
    }

    private func renewNow() async {
        defer { renewal = nil }
        let now = clock()
        do {
            held = try await store.renewReminderLeases(ids: held.sorted(), owner: owner, now: now, leaseSeconds: leaseSeconds)
            validUntil = now + leaseSeconds
        } catch {
            // Without a renewal nothing more is started; the run's settling reports the database's trouble.
            held = []
        }
    }
}
