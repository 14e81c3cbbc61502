import Diagnostics
import Foundation
import Pipeline
import PipelineFile
import ReportsXLSX
import SinksSQLite
import CoreDataFormat
import StoreTools

/// A pipeline run exactly as `pipectl run` does it, for Swift code: a test, a macOS tool, an app's
/// build script. It takes the store's lock, builds the new store beside the target, checks that no
/// input changed, runs the data checks, writes the reports aside, and puts store and reports in
/// place only once all of that succeeded: a failed run leaves the previous store and reports as
/// they were.
///
/// ```swift
/// let run = PipelineRun(pipeline: try PipelineRun.load(URL(fileURLWithPath: "pipelines/grocery.yaml")))
/// let report = try run.run()        // what the JSON report says, as a value
/// for source in report.sources { print(source.name, source.inserted) }
/// ```
///
/// A command-line tool that wants an interrupted run to remove what it was writing calls
/// `InterruptCleanup.installHandlers()` first, as `pipectl run` does.
public final class PipelineRun {
    public struct Options: Sendable {
        /// Read, transform and check everything, then throw the new store away: nothing is
        /// written, not the store's folder, not the pipeline's reports (only `reportFile`).
        public var dryRun: Bool
        /// A report to write besides the pipeline's own: `.xlsx` or `.json`.
        public var reportFile: URL?
        /// Seconds to wait for another run building the same store (0: fail at once, `.busy`).
        public var waitForLock: Double
        /// How many duplicates with other values the caller shows from `log` (`pipectl run`'s
        /// summary: the first ten): a run that writes no report describes only those, and counts
        /// the others (`ImportLog.describedConflicts`). nil: `log` keeps every duplicate.
        /// `run()`'s report lists them all whatever this says.
        public var duplicatesShown: Int?

        public init(dryRun: Bool = false, reportFile: URL? = nil, waitForLock: Double = 0, duplicatesShown: Int? = nil) {
            self.dryRun = dryRun
            self.reportFile = reportFile
            self.waitForLock = waitForLock
            self.duplicatesShown = duplicatesShown
        }
    }

    /// How far the run is: given about every 16k records, on the reading thread.
    public struct Progress: Sendable {
        /// The source being read (its index in the pipeline) and its name.
        public var source: Int
        public var sourceName: String
        /// Records read so far, all sources together.
        public var records: Int
        /// Input bytes read so far and all inputs' bytes, all sources together.
        public var bytesRead: Int64
        public var bytesTotal: Int64
    }

    public let pipeline: PipelineDefinition
    public let options: Options
    /// Told how far the run is.
    public var progress: ((Progress) -> Void)?
    /// Told what the run does when it is not reading (finishing the store, writing a report), and
    /// nil once that is done.
    public var status: ((String?) -> Void)?
    /// Changes of your own to the new store (SQL, say), made when it is complete and before pipectl
    /// checks it (the row checks, then `checks:`) and puts it in place; a throw keeps the old store.
    public var finishStore: ((URL) throws -> Void)?

    /// The run's counts, rejections, skips, duplicates and check results, filled in as it goes:
    /// readable after a failure too (the records `on_reject: fail` rejected, the failed checks).
    public var log: ImportLog { runner.log }
    /// What the new store changed in the store it replaced, compared while both existed; only a
    /// run that writes a report compares (it costs time).
    public private(set) var changes: Result<StoreChanges, ImportReport.ChangesUnavailable> =
        .failure(.init("the run failed before its new store was complete"))
    /// Seconds the run took, once it has succeeded.
    public private(set) var elapsed: TimeInterval = 0
    /// A report that could not be written for a failed run; the run's own error is the one thrown.
    public private(set) var reportFailure: PipelineError?

    private let runner: Runner
    private let digests: InputDigests
    /// `run()` reads every duplicate back for its report value.
    private var makesReport = false

    public init(pipeline: PipelineDefinition, options: Options = Options()) {
        self.pipeline = pipeline
        self.options = options
        runner = Runner(pipeline: pipeline)
        digests = InputDigests(pipeline: pipeline)
    }

    /// The pipeline file at `url`, with every reader, transform and model reader pipectl has;
    /// `${NAME}` from `variables`, then the environment.
    public static func load(_ url: URL, variables: [String: String] = [:]) throws -> PipelineDefinition {
        try PipelineLoader.load(contentsOf: url, registry: Components.registry, variables: PipelineVariables(given: variables))
    }

    /// Runs the pipeline; the store and reports are in place when it returns. Returns what the run
    /// did, as its JSON report states it. Throws `PipelineError`, whose `kind` is what `pipectl
    /// run`'s exit code says; a failed run's reports say why (unless another run holds the store).
    @discardableResult
    public func run() throws(PipelineError) -> ImportReport {
        makesReport = true
        try execute()
        return report
    }

    /// Runs the pipeline as `run()` does (the store, and every report file the pipeline or the
    /// options name), without making the report's value: `pipectl run` prints its summary from
    /// `log` and `changes`. The value reads every duplicate back from where the run kept it
    /// (5,000 duplicates: 75M instructions, 1.3% of the run).
    public func execute() throws(PipelineError) {
        let started = Date()
        do {
            if let reportFile = options.reportFile {
                let url = reportFile.standardizedFileURL
                if let what = pipeline.conflict(ofOutput: url, others: [pipeline.report.xlsx, pipeline.report.json].compactMap { $0 }) {
                    throw PipelineError(.invalidPipeline, code: .pipelineReportPathConflict, stage: "pipectl",
                                        "--report '\(reportFile.relativePath)' is \(what): writing the report there would destroy it; name a file of its own")
                }
            }
            let inputs = try InputFiles(pipeline: pipeline)
            // A dry run writes nothing at all: only a report the options ask for.
            let reports = ReportFiles(settings: options.dryRun ? ReportSettings() : pipeline.report,
                                      extra: options.reportFile, digests: digests)
            for (url, _) in reports.files { try ReportFiles.checkWritable(url, name: DisplayPath.of(url)) }
            runner.log.describedConflicts = reports.files.isEmpty && !makesReport ? options.duplicatesShown : nil
            do {
                try build(inputs: inputs, reports: reports)
            } catch {
                let error = PipelineRun.userFacing(error)
                if error.kind != .busy {
                    do {
                        try reports.write(runner: runner, outcome: .failed(error.description), changes: changes)
                    } catch {
                        reportFailure = PipelineRun.userFacing(error)
                    }
                }
                throw error
            }
        } catch {
            throw PipelineRun.userFacing(error)
        }
        elapsed = Date().timeIntervalSince(started)
    }

    /// What the JSON report says about the run, as a value, once `execute()` has returned.
    public var report: ImportReport {
        ImportReport(runner: runner, outcome: options.dryRun ? .dryRun : .succeeded, changes: changes,
                     display: DisplayPath.of) { [digests] in digests.digest(of: $0).map { ($0.bytes, $0.hex) } }
    }

    private func build(inputs: InputFiles, reports: ReportFiles) throws {
        if let progress {
            // Sizes only for a progress report: a run nobody watches does not stat its inputs for it.
            let sizes = pipeline.sources.map { source in
                ((try? FileManager.default.attributesOfItem(atPath: source.reader.input.url.path)[.size]) as? NSNumber)?.int64Value ?? 0
            }
            let log = runner.log, total = sizes.reduce(0, +)
            runner.progress = { source, bytesRead in
                progress(Progress(source: source, sourceName: log.sourceNames[source], records: log.sources.reduce(0) { $0 + $1.read },
                                  bytesRead: sizes.prefix(source).reduce(0, +) + min(bytesRead, sizes[source]), bytesTotal: total))
            }
        }
        if let status {
            let store = DisplayPath.of(pipeline.store.path)
            runner.finishing = { status("finishing \(store): indexes and checks") }
        }
        defer { status?(nil) }
        var staged: ReportFiles.Staged?
        do {
            let sink = try SQLiteSink(settings: pipeline.store, model: pipeline.model, waitingForLock: options.waitForLock, dryRun: options.dryRun)
            if pipeline.store.layout == .coredata, pipeline.store.uuid == nil {
                // The same inputs give the same UUID, and so the same bytes.
                sink.storeUUID = { [digests] isCancelled in
                    CoreDataMetadata.storeUUID(from: try digests.storeDigest(isCancelled: isCancelled))
                }
            }
            // Called with the new store complete and checked, the old one still in place: the last
            // moment a failure leaves the old store, so the inputs are checked and the reports
            // written then.
            // The row checks below read every link against the row it names.
            sink.linksCheckedInReview = pipeline.store.layout == .coredata
            // Changes of the caller's own write into the store: nothing may read it meanwhile.
            sink.reviewOnlyReads = finishStore == nil
            sink.review = { [self, unowned sink] newStore in
                try inputs.checkUnchanged()
                try finishStore?(newStore)
                // Every row as Core Data would have written it: a failure is pipectl's bug, and keeps the old store.
                if pipeline.store.layout == .coredata {
                    let findings = try StoreRowChecks.run(storeAt: newStore, model: pipeline.model)
                    if let failure = StoreRowChecks.failure(findings, store: DisplayPath.of(pipeline.store.path)) { throw failure }
                }
                // The data checks, on the new store while the old one is in place: a failure keeps it.
                runner.log.checkResults = try DataChecks.run(pipeline, storeAt: newStore, placeholders: runner.log.placeholders)
                if let failure = DataChecks.failure(of: runner.log.checkResults, naming: true, then: "; the store was left as it was") {
                    throw failure
                }
                guard !reports.files.isEmpty else { return }
                // Only the report shows the changes: a run without one does not pay for comparing.
                changes = ChangeReview.compare(pipeline: pipeline, newStore: newStore)
                runner.log.links = try sink.linkCounts()
                staged = try reports.stage(runner: runner, outcome: options.dryRun ? .dryRun : .succeeded, changes: changes,
                                           store: options.dryRun ? nil : newStore, status: status)
            }
            try runner.run(into: sink, dryRun: options.dryRun)
            try staged?.commit()
        } catch {
            staged?.discard()
            throw error
        }
    }

    /// `error` as a `PipelineError`: SQLite's as the sink words it, any other as an I/O error.
    public static func userFacing(_ error: any Error) -> PipelineError {
        if let error = PipelineError.converting(error) as? PipelineError { return error }
        return PipelineError(.io, code: .runUnexpectedError, stage: "pipectl", String(describing: error))
    }
}
