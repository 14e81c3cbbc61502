#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A debug-build check that something used from one thread (a SQLite connection and its
/// statements; the reader, transforms and loads a `RecordFeed` drives) is never used from another, as GRDB's `SchedulingWatchdog` checks its
/// connections. Release builds keep nothing and check nothing.
///
/// The first `check()` (or `init(claimingCurrentThread:)`) binds it to the calling thread.
public struct ThreadConfinement: @unchecked Sendable {
    // @unchecked: a pthread_t is a plain value (an integer on Linux, a pointer on Darwin).
    #if DEBUG
    private var owner: pthread_t?
    #endif
    private let what: String

    /// `what` names the confined thing in the failure message.
    public init(_ what: String, claimingCurrentThread: Bool = false) {
        self.what = what
        #if DEBUG
        if claimingCurrentThread { owner = pthread_self() }
        #endif
    }

    /// Gives it up: the next thread to `check()` owns it. For handing it to another thread, which
    /// the giving thread waits for (a semaphore, a join) before it uses the thing again.
    @inline(__always)
    public mutating func release() {
        #if DEBUG
        owner = nil
        #endif
    }

    /// Stops in debug builds when called from another thread than the first one that called it.
    @inline(__always)
    public mutating func check(file: StaticString = #fileID, line: UInt = #line) {
        #if DEBUG
        let current = pthread_self()
        guard let owner else { return self.owner = current }
        precondition(pthread_equal(owner, current) != 0, "\(what) is used from two threads", file: file, line: line)
        #endif
    }
}
