import Foundation
import Diagnostics
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A new folder of the system's temporary folder that only this process made and only its user
/// can enter (`mkdtemp`, mode 0700), removed with what it holds when dropped. Files a run keeps
/// out of the way (a dry run's store, a copy of a store to read) go here, never at a predictable
/// name in the shared folder, where another user could have planted a symbolic link.
public final class PrivateFolder {
    public let url: URL
    private var removed = false

    /// Creates `<temporary folder>/<prefix>-XXXXXX`. Throws `PipelineError` `.io` when it cannot.
    public init(prefix: String, location: Location? = nil) throws {
        let base = FileManager.default.temporaryDirectory.standardizedFileURL.path
        var template = Array("\(base)/\(prefix)-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            let reason = String(cString: strerror(errno))
            throw PipelineError(.io, code: .tempCannotCreate, at: location, stage: "temp",
                                "cannot create a private temporary folder in '\(base)': \(reason)")
        }
        url = URL(fileURLWithPath: template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }, isDirectory: true)
    }

    deinit { remove() }

    /// Removes the folder and everything in it; later calls do nothing.
    public func remove() {
        guard !removed else { return }
        removed = true
        try? FileManager.default.removeItem(at: url)
    }
}
