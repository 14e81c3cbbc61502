#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Diagnostics
import Checksums
import Foundation
import Pipeline

/// The size and SHA-256 of every file a run reads (the pipeline file, the model, every input),
/// each read once and shared: the store's UUID is derived from them (on the sink's background
/// thread, while the run goes on) and the report lists the inputs' ones, so no input is read a
/// third time for either.
final class InputDigests: @unchecked Sendable {
    // @unchecked: `known` is read and written under `lock` only.
    struct Digest: Sendable {
        var bytes: Int64
        var sha256: [UInt8]
        var hex: String { sha256.map { String(format: "%02x", $0) }.joined() }
    }

    let pipeline: PipelineDefinition
    private let lock = NSLock()
    private var known: [URL: Digest] = [:]

    init(pipeline: PipelineDefinition) {
        self.pipeline = pipeline
    }

    /// The files the store UUID is derived from, in order.
    var files: [URL] {
        var files = [pipeline.file]
        for model in pipeline.store.modelPaths { files += InputDigests.modelFiles(model) }
        return files + pipeline.sources.map(\.reader.input.url)
    }

    /// A digest of every file in `files`, each name then its own digest, in order: the same inputs
    /// give the same UUID, and so the same bytes. Throws `CancellationError` once `isCancelled`
    /// says it is no longer wanted (the run failed).
    func storeDigest(isCancelled: () -> Bool) throws -> [UInt8] {
        var hasher = Checksum(.sha256)
        for file in files {
            // Names are hashed too, so that moving data between files changes the UUID.
            hasher.update(Data(file.lastPathComponent.utf8))
            hasher.update(try digest(of: file, isCancelled: isCancelled).sha256)
        }
        return hasher.finalize()
    }

    /// The file's size and SHA-256, read once; nil for a file that cannot be read.
    func digest(of url: URL) -> Digest? {
        try? digest(of: url, isCancelled: { false })
    }

    private func digest(of url: URL, isCancelled: () -> Bool) throws -> Digest {
        if let digest = lock.withLock({ known[url] }) { return digest }
        // Not blocking, should the path name a FIFO: a device or a FIFO may never end, or give
        // other bytes than the run read. The type is that of the file opened, so a symbolic link
        // to an export is read like the export (as its reader read it).
        let file = open(url.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard file >= 0 else {
            let reason = String(cString: strerror(errno))
            throw PipelineError(.io, code: .inputCannotRead, stage: "pipeline", "cannot read \(DisplayPath.of(url)): \(reason)")
        }
        defer { close(file) }
        var status = stat()
        guard fstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw PipelineError(.io, code: .inputNotARegularFile, stage: "pipeline",
                                "cannot take the checksum of \(DisplayPath.of(url)): not a regular file")
        }
        var hasher = Checksum(.sha256)
        var size: Int64 = 0
        // 1 MiB at a time into one buffer, so that a large export is never held whole. A new
        // buffer for each chunk cost more than the hash (a 94 MB export: its pages faulted in and
        // cleared each time, 0.16 s of CPU against 0.10 s).
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 64)
        defer { buffer.deallocate() }
        while true {
            if isCancelled() { throw CancellationError() }
            let count = read(file, buffer.baseAddress!, buffer.count)
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                throw PipelineError(.io, code: .inputCannotRead, stage: "pipeline", "cannot read \(DisplayPath.of(url)): \(reason)")
            }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            size += Int64(count)
        }
        let digest = Digest(bytes: size, sha256: hasher.finalize())
        lock.withLock { known[url] = digest }
        return digest
    }

    /// A model folder's files in a fixed order (an .xcdatamodeld holds several versions).
    private static func modelFiles(_ url: URL) -> [URL] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else { return [url] }
        // The enumerator lists nothing under a link to a folder: the model would be left out of
        // the UUID, and a changed model would keep it.
        let all = FileManager.default.enumerator(at: url.resolvingSymlinksInPath(), includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL } ?? []
        // stat, not the URL's resource values, which say a symbolic link is no regular file: the
        // model reader follows links, so the UUID must too.
        return all.filter { file in
            var status = stat()
            return stat(file.path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
        }
            .sorted { $0.path < $1.path }
    }
}
