import Synchronization

/// A flag set once, read from any task (the database's migration having run).
public final class ReadyFlag: Sendable {
    private let value = Atomic<Bool>(false)

    public init() {}

    public func set() { value.store(true, ordering: .releasing) }
    public var isSet: Bool { value.load(ordering: .acquiring) }
}
