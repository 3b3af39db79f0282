extension Task where Failure == any Error {
    /// The task's value, waited for so that cancelling the waiting task cancels this one too.
    ///
    /// An unstructured task does not inherit the cancellation of the task that awaits it: a service told to stop
    /// while it waits on one (a lease fetched ahead, a shared token fetch) would otherwise wait for it to end.
    public var cancellingValue: Success {
        get async throws {
            try await withTaskCancellationHandler {
                try await value
            } onCancel: {
                cancel()
            }
        }
    }
}

extension Task where Failure == Never {
    /// The task's value, waited for so that cancelling the waiting task cancels this one too (see the throwing
    /// task's `cancellingValue`).
    public var cancellingValue: Success {
        get async {
            await withTaskCancellationHandler {
                await value
            } onCancel: {
                cancel()
            }
        }
    }
}
