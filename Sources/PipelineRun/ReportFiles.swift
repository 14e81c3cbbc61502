import Foundation
import Diagnostics
import Pipeline
import Safeguards
import ReportsXLSX
import StoreTools
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The reports a run writes: the pipeline's `report:` files plus `--report FILE`, each as XLSX or
/// JSON by its extension.
public struct ReportFiles {
    public enum Format: Sendable { case xlsx, json }

    let files: [(url: URL, format: Format)]
    /// The inputs' sizes and checksums, shared with the store's UUID.
    let digests: InputDigests

    init(settings: ReportSettings, extra: URL?, digests: InputDigests) {
        self.digests = digests
        var files: [(URL, Format)] = []
        if let xlsx = settings.xlsx { files.append((xlsx, .xlsx)) }
        if let json = settings.json { files.append((json, .json)) }
        if let extra, let format = ReportFiles.format(of: extra.path) { files.append((extra, format)) }
        self.files = files
    }

    /// The format a report path asks for, or nil when its extension is neither `.xlsx` nor `.json`.
    public static func format(of path: String) -> Format? {
        switch URL(fileURLWithPath: path).pathExtension.lowercased() {
        case "xlsx": .xlsx
        case "json": .json
        default: nil
        }
    }

    /// Writes every report of `runner`'s run now (a failed run's): see `stage` and `commit`.
    func write(runner: Runner, outcome: ImportReport.Outcome, changes: Result<StoreChanges, ImportReport.ChangesUnavailable>,
               status: ((String?) -> Void)? = nil) throws {
        try stage(runner: runner, outcome: outcome, changes: changes, store: nil, status: status).commit()
    }

    /// Writes every report of `runner`'s run to a temporary file beside its target, to be put in
    /// place by `commit()` once the run has succeeded: the reports are complete before the store
    /// is published, and a report that cannot be written fails the run with the old store in
    /// place. `store`: the finished new store, for the workbook's entity sheets (nil: none).
    /// `status` shows which is being written (a large store's workbook takes a while).
    func stage(runner: Runner, outcome: ImportReport.Outcome, changes: Result<StoreChanges, ImportReport.ChangesUnavailable>,
               store: URL?, status: ((String?) -> Void)? = nil) throws -> Staged {
        defer { status?(nil) }
        var staged = Staged()
        guard !files.isEmpty else { return staged }
        let report = ImportReport(runner: runner, outcome: outcome, changes: changes, display: DisplayPath.of) {
            digests.digest(of: $0).map { ($0.bytes, $0.hex) }
        }
        do {
            for (url, format) in files {
                let name = DisplayPath.of(url)
                status?("writing \(name)")
                try ReportFiles.checkWritable(url, name: name)
                do {
                    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                } catch {
                    throw PipelineError(.io, code: .reportCannotWrite, at: Location(file: name), stage: "report",
                                        "cannot create the report's folder \(DisplayPath.of(url.deletingLastPathComponent())): "
                                            + SystemErrorWords.words(for: error))
                }
                ReportFiles.removeStale(beside: url)
                let temporary = url.deletingLastPathComponent()
                    .appendingPathComponent(".\(url.lastPathComponent)\(ReportFiles.infix)\(getpid())")
                staged.add(temporary, for: url, name: name)
                switch format {
                case .json:
                    try JSONReportWriter().write(report, to: temporary, name: name)
                case .xlsx:
                    let settings = runner.pipeline.report
                    let rows = try store.map { try StoredRowsQuery.rows(of: runner.pipeline, limit: settings.storedRows, storeAt: $0) } ?? []
                    try XLSXReportWriter(includeDurations: settings.durations, rowsPerEntity: settings.storedRows)
                        .write(report, storedRows: rows, to: temporary, name: name)
                }
            }
        } catch {
            staged.discard()
            throw error
        }
        return staged
    }

    /// Between a report's name and the run's process id in its temporary name.
    static let infix = ".pipectl-report-"

    /// Removes the temporary reports (`.<name>.pipectl-report-<pid>`, and the writer's
    /// `..<name>.pipectl-report-<pid>.partial`) that runs no longer alive left beside `url`: a
    /// kill -9 runs no cleanup. A file of a process that is alive (another run's) is left alone.
    static func removeStale(beside url: URL) {
        let folder = url.deletingLastPathComponent()
        let prefixes = [".\(url.lastPathComponent)\(infix)", "..\(url.lastPathComponent)\(infix)"]
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names {
            guard let prefix = prefixes.first(where: name.hasPrefix) else { continue }
            var rest = name.dropFirst(prefix.count)
            if prefix.hasPrefix("..") {
                guard rest.hasSuffix(".partial") else { continue }
                rest = rest.dropLast(".partial".count)
            }
            guard let pid = pid_t(rest), pid > 0, pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            unlink(folder.appendingPathComponent(name).path)
        }
    }

    /// A report path must be a file to replace or a new name: never a device, a FIFO or a folder.
    static func checkWritable(_ url: URL, name: String) throws {
        var status = stat()
        guard stat(url.path, &status) == 0 else { return }
        let type = status.st_mode & S_IFMT
        guard type != S_IFREG else { return }
        let what = switch type {
        case S_IFDIR: "a folder"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFIFO: "a FIFO"
        default: "not a regular file"
        }
        throw PipelineError(.io, code: .reportNotARegularFile, at: Location(file: name), stage: "report",
                            "the report path is \(what), and pipectl writes reports to regular files only; name a file")
    }

    /// Reports written aside, waiting for the run's outcome.
    struct Staged {
        private var files: [(temporary: URL, target: URL, name: String, registration: InterruptCleanup.Registration?)] = []

        /// The writer's own `.partial` file is registered too: a signal while it writes leaves neither.
        private var partials: [InterruptCleanup.Registration?] = []

        fileprivate mutating func add(_ temporary: URL, for target: URL, name: String) {
            files.append((temporary, target, name, InterruptCleanup.register(temporary.path)))
            partials.append(InterruptCleanup.register(PartialFile.url(beside: temporary).path))
        }

        /// Puts every report in place.
        func commit() throws {
            defer { discard() }
            for file in files where rename(file.temporary.path, file.target.path) != 0 {
                let reason = String(cString: strerror(errno))
                throw PipelineError(.io, code: .reportCannotPublish, at: Location(file: file.name), stage: "report",
                                    "cannot move the report into place: \(reason)")
            }
        }

        /// Removes what was not put in place.
        func discard() {
            for file in files {
                unlink(file.temporary.path)
                unlink(PartialFile.url(beside: file.temporary).path)
                InterruptCleanup.unregister(file.registration)
            }
            for partial in partials { InterruptCleanup.unregister(partial) }
        }
    }
}
