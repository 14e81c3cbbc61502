import Foundation
import Diagnostics
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension StoreFile {
    /// Moves the staged files into `support.folder`, durably; returns the names it added (a name
    /// already there holds the same bytes: names are made from them).
    func moveIn(_ support: SupportFiles) throws -> [String] {
        let fail = { (what: String) in
            PipelineError(.io, code: .storeExternalDataFailed, at: location, stage: "sqlite",
                          "cannot put the external data in place at '\(support.folder.path)': \(what); the store was left as it was")
        }
        guard !support.names.isEmpty else { return [] }
        do {
            try FileManager.default.createDirectory(at: support.folder, withIntermediateDirectories: true)
        } catch {
            throw fail(SystemErrorWords.words(for: error))
        }
        var added: [String] = []
        for name in support.names.sorted() {
            let staged = supportStaging.appendingPathComponent(name).path
            let placed = support.folder.appendingPathComponent(name).path
            if access(placed, F_OK) == 0 { continue }
            do {
                try sync(staged, what: "an external data file")
            } catch {
                for name in added { unlink(support.folder.appendingPathComponent(name).path) }
                throw error
            }
            guard rename(staged, placed) == 0 else {
                let reason = StoreFile.lastError()
                for name in added { unlink(support.folder.appendingPathComponent(name).path) }
                throw fail(reason)
            }
            added.append(name)
        }
        try sync(support.folder.path, what: "the external data folder", isFolder: true)
        return added
    }

    /// Removes the files of `support.folder` the new store does not refer to, and the staging
    /// folder. Best effort: the store is in place, and a file left over holds nothing it reads.
    static func sweep(_ support: SupportFiles) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: support.folder.path)) ?? []
        where !support.names.contains(name) && UUID(uuidString: name) != nil {
            unlink(support.folder.appendingPathComponent(name).path)
        }
    }

    static func removeFolder(_ url: URL, what: String, location: Location?) throws {
        guard access(url.path, F_OK) == 0 else { return }
        do {
            try FileManager.default.removeItem(at: url)
        } catch {
            throw PipelineError(.io, code: .storeCannotRemove, at: location, stage: "sqlite",
                                "cannot remove '\(url.path)' (\(what)): \(SystemErrorWords.words(for: error))")
        }
    }
}
