import Foundation
import Diagnostics
import Pipeline
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The files a run reads, as they were when it started: each input must be a regular file (a
/// device or a FIFO can be read forever, or only once, and the report and the store's UUID read
/// every input a second time), and none may change while the run reads it (an export still being
/// written, or truncated, would load part of its records and look like a complete run).
struct InputFiles: Sendable {
    private struct Snapshot: Sendable, Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: Int64
    }

    private let files: [(url: URL, shown: String, location: Location?, snapshot: Snapshot)]

    /// Checks that every input of `pipeline` (and the pipeline file) is a regular file, and notes
    /// their size and modification time. Throws `PipelineError` `.invalidInput` at the source's
    /// `read:` for one that is not; a missing input is left to its reader to report.
    init(pipeline: PipelineDefinition) throws {
        var files: [(URL, String, Location?, Snapshot)] = []
        if let snapshot = InputFiles.snapshot(pipeline.file) {
            files.append((pipeline.file, pipeline.file.path, nil, snapshot))
        }
        for source in pipeline.sources {
            let input = source.reader.input
            var status = stat()
            guard stat(input.url.path, &status) == 0 else { continue }
            let type = status.st_mode & S_IFMT
            guard type == S_IFREG else {
                let what = switch type {
                case S_IFDIR: "a folder"
                case S_IFCHR, S_IFBLK: "a device"
                case S_IFIFO: "a FIFO (a named pipe)"
                case S_IFSOCK: "a socket"
                default: "not a regular file"
                }
                throw PipelineError(.invalidInput, code: .inputNotARegularFile,
                                    at: source.reader.location ?? Location(file: input.displayPath), stage: "pipeline",
                                    "the input '\(input.displayPath)' is \(what); pipectl reads regular files only "
                                        + "(it reads each input twice: for the records, and for the report and the store's UUID)")
            }
            files.append((input.url, input.displayPath, source.reader.location, InputFiles.snapshot(status)))
        }
        self.files = files
    }

    /// Throws `PipelineError` `.io` when an input changed since `init`: its size, its modification
    /// time or the file its path names.
    func checkUnchanged() throws {
        for file in files where InputFiles.snapshot(file.url) != file.snapshot {
            throw PipelineError(.io, code: .inputChangedDuringRun, at: Location(file: file.shown), stage: "pipeline",
                                "the file changed while the run read it (its size, time or identity is not what it was when the run "
                                    + "started): the records read may be from neither version, so the store was left as it was. "
                                    + "Run again once whatever writes it is done")
        }
    }

    private static func snapshot(_ url: URL) -> Snapshot? {
        var status = stat()
        guard stat(url.path, &status) == 0 else { return nil }
        return snapshot(status)
    }

    private static func snapshot(_ status: stat) -> Snapshot {
        #if canImport(Darwin)
        let modified = Int64(status.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(status.st_mtimespec.tv_nsec)
        #else
        let modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        #endif
        return Snapshot(device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: Int64(status.st_size),
                        modified: modified)
    }
}
