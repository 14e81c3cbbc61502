import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Files a run must not leave behind when it is interrupted: the store being built, reports being
/// written, the store's lock. `pipectl` installs handlers for SIGINT, SIGTERM and SIGHUP that
/// remove every registered file and exit with 128 + the signal's number (130, 143, 129), as a
/// shell reports a process stopped by the signal.
///
/// A signal handler may only call async-signal-safe functions: the paths are kept as C strings in
/// a table allocated once, which the handler reads without locks or allocation, and it calls
/// `unlink`, `rmdir`, `write` and `_exit` only.
public enum InterruptCleanup {
    /// A registered file, to unregister once it is gone or has become a result.
    public struct Registration: Sendable {
        fileprivate let slot: Int
    }

    /// How many files may be registered at once: a run has a handful.
    private static let capacity = 64
    nonisolated(unsafe) private static let paths: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let table = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity)
        table.initialize(repeating: nil, count: capacity)
        return table
    }()
    private static let lock = NSLock()

    /// Adds `path` to the files an interruption removes; nil when the table is full (the file is
    /// then left to the next run's cleanup, as after a kill).
    @discardableResult
    public static func register(_ path: String) -> Registration? {
        lock.withLock {
            for slot in 0..<capacity where paths[slot] == nil {
                paths[slot] = strdup(path)
                return Registration(slot: slot)
            }
            return nil
        }
    }

    /// Removes a registration: its file is gone, or is now a result to keep (a published store).
    public static func unregister(_ registration: Registration?) {
        guard let registration else { return }
        lock.withLock {
            let path = paths[registration.slot]
            // Emptied before it is freed: a handler running now sees nil or a whole string.
            paths[registration.slot] = nil
            free(path)
        }
    }

    /// Installs the handlers; call once, before any file is registered.
    public static func installHandlers() {
        _ = paths  // allocated now, never in the handler
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            var action = sigaction()
            #if canImport(Darwin)
            action.__sigaction_u.__sa_handler = InterruptCleanup.handle
            #else
            action.__sigaction_handler.sa_handler = InterruptCleanup.handle
            #endif
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(signal, &action, nil)
        }
        // A parent may start pipectl with these signals blocked (some process launchers and CI
        // runners do), which would leave a run deaf to them; threads started later inherit this.
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        for signal in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&unblocked, signal) }
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
    }

    /// Removes every registered file and exits. Async-signal-safe: no locks, no allocation.
    private static let handle: @convention(c) (Int32) -> Void = { signal in
        for slot in 0..<InterruptCleanup.capacity {
            if let path = InterruptCleanup.paths[slot] { unlink(path) }
        }
        // Then the folders (a dry run's), now empty; rmdir fails harmlessly on what was a file.
        for slot in 0..<InterruptCleanup.capacity {
            if let path = InterruptCleanup.paths[slot] { rmdir(path) }
        }
        // A static string: its bytes need no allocation.
        let message: StaticString = "\npipectl: interrupted; the store and reports were left as they were\n"
        _ = write(2, message.utf8Start, message.utf8CodeUnitCount)
        _exit(128 + signal)
    }
}
