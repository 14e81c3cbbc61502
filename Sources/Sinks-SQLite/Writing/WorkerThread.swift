import Foundation

/// A value worked out on a thread of its own while the caller goes on, waited for where it is
/// needed.
final class WorkerThread<Value: Sendable>: @unchecked Sendable {
    // Written by the thread before it signals `done`, read only after waiting for it.
    private var outcome: Result<Value, any Error>?
    private let done = DispatchSemaphore(value: 0)

    /// Starts `work` now.
    init(_ work: @escaping @Sendable () throws -> Value) {
        Thread.detachNewThread { [self] in
            outcome = Result(catching: work)
            done.signal()
        }
    }

    /// What `work` returned, waiting for it to end; rethrows its error.
    func result() throws -> Value {
        done.wait()
        defer { done.signal() }  // for a second call
        return try outcome!.get()
    }
}
