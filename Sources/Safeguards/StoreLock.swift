import Foundation
import Diagnostics
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One run per store at a time: an advisory lock (`flock`) on `.<name>.pipectl-lock` beside the
/// store, held from before the store is built until it is in place or thrown away. The file holds
/// the holder's process id, for the message a second run gets.
///
/// The lock file is removed by its holder on release, which alone could let two runs lock two
/// different files of that name; so a run that got the lock checks that the name still leads to
/// the file it locked, and tries again otherwise. The kernel releases the lock of a run that is
/// killed; its file then stays until the next run releases the lock.
///
/// `flock` locks are advisory (processes that do not ask are not stopped) and local: on a network
/// file system, runs on different machines may not see each other's lock (docs/reliability.md).
public final class StoreLock {
    public let url: URL
    private var descriptor: Int32
    private var registration: InterruptCleanup.Registration?

    /// `.<name>.pipectl-lock` in the target's folder.
    public static func url(for target: URL) -> URL {
        target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).pipectl-lock")
    }

    /// Takes the lock of the store at `target`, waiting up to `wait` seconds for another run to
    /// release it. Throws `PipelineError` `.busy` naming the other run's process when it does not.
    public init(target: URL, wait: Double, location: Location?) throws {
        url = StoreLock.url(for: target)
        let deadline = Date().addingTimeInterval(max(wait, 0))
        while true {
            let descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                let reason = String(cString: strerror(errno))
                throw PipelineError(.io, code: .storeCannotLock, at: location, stage: "sqlite",
                                    "cannot create the store's lock file '\(url.path)': \(reason)")
            }
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
                if StoreLock.isStillNamed(descriptor, url.path) {
                    self.descriptor = descriptor
                    break
                }
                close(descriptor)  // its holder removed it as we locked it: lock the new one
                continue
            }
            let code = errno
            let holder = StoreLock.holder(descriptor)
            close(descriptor)
            guard code == EWOULDBLOCK || code == EAGAIN else {
                throw PipelineError(.io, code: .storeCannotLock, at: location, stage: "sqlite",
                                    "cannot lock '\(url.path)': \(String(cString: strerror(code)))")
            }
            guard Date() < deadline else {
                let who = holder.map { "another pipectl run (process \($0))" } ?? "another pipectl run"
                let waited = wait > 0 ? " after waiting \(StoreLock.seconds(wait))" : ""
                throw PipelineError(.busy, code: .storeLocked, at: location, stage: "sqlite",
                                    "\(who) is building the store '\(target.path)'\(waited); it was left as it was. "
                                        + "Run again when that run is done, or give --wait SECONDS to wait for it")
            }
            usleep(50_000)
        }
        registration = InterruptCleanup.register(url.path)
        let pid = "\(getpid())\n"
        _ = ftruncate(descriptor, 0)
        _ = pid.withCString { write(descriptor, $0, strlen($0)) }
    }

    deinit {
        release()
    }

    /// Removes the lock file and releases the lock; later calls do nothing.
    public func release() {
        guard descriptor >= 0 else { return }
        InterruptCleanup.unregister(registration)
        registration = nil
        // Removed while still locked: a run waiting on this file then finds it gone and locks anew.
        unlink(url.path)
        close(descriptor)
        descriptor = -1
    }

    /// Whether `path` still names the file open at `descriptor`.
    private static func isStillNamed(_ descriptor: Int32, _ path: String) -> Bool {
        var open = stat(), named = stat()
        guard fstat(descriptor, &open) == 0, stat(path, &named) == 0 else { return false }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }

    /// The process id the holder wrote, if it has yet.
    private static func holder(_ descriptor: Int32) -> Int? {
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = pread(descriptor, &bytes, bytes.count, 0)
        guard count > 0 else { return nil }
        return Int(String(decoding: bytes.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }
}
