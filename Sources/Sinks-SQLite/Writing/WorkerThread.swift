import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A value worked out on a thread of its own while the caller goes on, waited for where it is
/// needed, or cancelled and waited for when it no longer is: the thread never outlives its owner's
/// interest in it.
package final class WorkerThread<Value: Sendable>: @unchecked Sendable {
    // Written by the thread before it signals `done`, read only after waiting for it.
    private var outcome: Result<Value, any Error>?
    private let done = DispatchSemaphore(value: 0)
    private let cancellation = Cancellation()

    /// Tells a running work whether its result is still wanted; a long work asks now and then and
    /// stops (throwing `CancellationError`) once it is not.
    package final class Cancellation: @unchecked Sendable {
        // @unchecked: `cancelled` is read and written under `lock` only.
        private let lock = NSLock()
        private var cancelled = false

        package var isCancelled: Bool { lock.withLock { cancelled } }
        fileprivate func cancel() { lock.withLock { cancelled = true } }
    }

    /// Starts `work` now. A `background` thread runs at the lowest priority: on cores the caller
    /// keeps busy it takes only the time they leave idle, until the caller waits for it.
    package init(background: Bool = false, _ work: @escaping @Sendable (Cancellation) throws -> Value) {
        let cancellation = self.cancellation
        let thread = Thread { [self] in
            #if canImport(Glibc)
            // Linux keeps a nice value per thread (not per process, as POSIX has it): 0 is this one.
            if background { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19) }
            #endif
            outcome = Result { try work(cancellation) }
            done.signal()
        }
        #if canImport(Darwin)
        if background { thread.qualityOfService = .background }
        #endif
        thread.start()
    }

    /// What `work` returned, waiting for it to end; rethrows its error.
    package func result() throws -> Value {
        done.wait()
        defer { done.signal() }  // for a later call
        return try outcome!.get()
    }

    /// Tells the work its result is no longer wanted and waits until its thread has ended.
    package func cancel() {
        cancellation.cancel()
        done.wait()
        done.signal()
    }
}
