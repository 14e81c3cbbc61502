import Crypto
import Foundation
import Pipeline

/// A digest of everything a run reads (the pipeline file, the model, every input), from which the
/// store's UUID is derived: the same inputs give the same UUID, and so the same bytes.
enum InputDigest {
    /// The files a digest of `pipeline` reads, in order.
    static func files(of pipeline: PipelineDefinition) -> [URL] {
        var files = [pipeline.file]
        if let model = pipeline.store.modelPath { files += modelFiles(model) }
        return files + pipeline.sources.map(\.reader.input.url)
    }

    /// The SHA-256 of `files`, each name then contents, in order. Throws `CancellationError`
    /// once `isCancelled` says the digest is no longer wanted (the run failed).
    static func of(_ files: [URL], isCancelled: () -> Bool = { false }) throws -> [UInt8] {
        var hasher = SHA256()
        for file in files {
            // Names are hashed too, so that moving data between files changes the UUID.
            hasher.update(data: Data(file.lastPathComponent.utf8))
            try hash(file, into: &hasher, isCancelled: isCancelled)
        }
        return Array(hasher.finalize())
    }

    /// A model folder's files in a fixed order (an .xcdatamodeld holds several versions).
    private static func modelFiles(_ url: URL) -> [URL] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else { return [url] }
        let all = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return all.filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
            .sorted { $0.path < $1.path }
    }

    private static func hash(_ url: URL, into hasher: inout SHA256, isCancelled: () -> Bool) throws {
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            throw PipelineError(.io, stage: "pipeline", "cannot read \(Terminal.display(url))")
        }
        defer { try? handle.close() }
        while true {
            if isCancelled() { throw CancellationError() }
            let chunk = try handle.read(upToCount: 1 << 20) ?? Data()
            if chunk.isEmpty { break }
            hasher.update(data: chunk)
        }
    }
}
