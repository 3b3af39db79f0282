/// The revocation list counters and verifiers apply.
public protocol RevocationStore: Sendable {
    /// The whole revocation list, or with `since` only the changes after that version (the whole list when
    /// `since` is newer than the list, which a counter holding another database's version may send).
    func revocations(since: Int64?) async throws -> RevocationSnapshot
}

extension RevocationStore {
    /// The whole revocation list.
    public func revocations() async throws -> RevocationSnapshot {
        try await revocations(since: nil)
    }
}
