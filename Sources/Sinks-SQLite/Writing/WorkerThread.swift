import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A value worked out on a thread of its own while the caller goes on, waited for where it is
/// needed.
final class WorkerThread<Value: Sendable>: @unchecked Sendable {
    // Written by the thread before it signals `done`, read only after waiting for it.
    private var outcome: Result<Value, any Error>?
    private let done = DispatchSemaphore(value: 0)

    /// Starts `work` now. A `background` thread runs at the lowest priority: on cores the caller
    /// keeps busy it takes only the time they leave idle, until the caller waits for it.
    init(background: Bool = false, _ work: @escaping @Sendable () throws -> Value) {
        let thread = Thread { [self] in
            #if canImport(Glibc)
            // Linux keeps a nice value per thread (not per process, as POSIX has it): 0 is this one.
            if background { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19) }
            #endif
            outcome = Result(catching: work)
            done.signal()
        }
        #if canImport(Darwin)
        if background { thread.qualityOfService = .background }
        #endif
        thread.start()
    }

    /// What `work` returned, waiting for it to end; rethrows its error.
    func result() throws -> Value {
        done.wait()
        defer { done.signal() }  // for a second call
        return try outcome!.get()
    }
}
