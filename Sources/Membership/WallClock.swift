import Foundation

/// The one source of the current time, in whole seconds since the epoch, as every time here is. Built once at
/// the top (the command line's ``system`` clock, a test's own) and handed to every service, so a test can move
/// it and no decision reads two clocks.
public struct WallClock: Sendable {
    private let read: @Sendable () -> Int64

    /// A clock that reads `read`.
    public init(_ read: @escaping @Sendable () -> Int64) {
        self.read = read
    }

    /// The current time by this clock.
    public func callAsFunction() -> Int64 { read() }

    /// The system's clock: the only place the service reads the real time.
    public static let system = WallClock { Int64(Date().timeIntervalSince1970) }

    /// This clock, `offset` seconds ahead (behind, when negative): "act as if it were then, the clock running on".
    public func shifted(by offset: Int64) -> WallClock {
        WallClock { [read] in read() + offset }
    }
}
