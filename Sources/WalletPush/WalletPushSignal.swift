/// Wakes the push worker as soon as a change may have made a pass update due (a sale answered, a card
/// cancelled), instead of leaving it to the next look. Nudges while the worker is busy coalesce into one.
public final class WalletPushSignal: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    public init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Something changed: the worker looks now.
    public func nudge() { continuation.yield() }

    /// Returns at the next nudge (or one given since the last wait), or after `timeout`.
    public func wait(upTo timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [stream] in
                var iterator = stream.makeAsyncIterator()
                _ = await iterator.next()
            }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }
}
