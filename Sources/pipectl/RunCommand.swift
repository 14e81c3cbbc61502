import Diagnostics
import ArgumentParser
import Foundation
import Pipeline
import Safeguards
import ReportsXLSX
import SinksSQLite
import CoreDataFormat
import StoreTools

/// `pipectl run FILE`: runs a pipeline and puts the finished store in place.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a pipeline: read, transform and load every source into the store.",
        discussion: """
            The store is built beside the target and renamed into place only when it is complete \
            and checked; a failed run leaves the previous store as it was.
            """)

    @OptionGroup var options: PipelineOptions

    @Flag(help: "Read, transform and check everything, then throw the new store away: nothing is written, not the store's folder, not the pipeline's reports (only a report --report names).")
    var dryRun = false

    @Flag(name: .shortAndLong, help: "Print errors only.")
    var quiet = false

    @Option(name: .customLong("report"), help: ArgumentHelp(
        "Also write the import report to this file (.xlsx or .json).", valueName: "file"))
    var reportFile: String?

    @Option(help: ArgumentHelp(
        "Wait up to this many seconds for another run building the same store (default 0: exit 75 at once).",
        valueName: "seconds"))
    var wait: Double = 0

    func validate() throws {
        if let reportFile, ReportFiles.format(of: reportFile) == nil {
            throw ValidationError("--report '\(reportFile)': the report is written as .xlsx or .json; name the file so")
        }
        guard wait >= 0, wait.isFinite else {
            throw ValidationError("--wait \(wait): give the seconds to wait, 0 or more")
        }
    }

    func run() throws {
        // Interrupted, a run removes what it was writing: the store and reports stay as they were.
        InterruptCleanup.installHandlers()
        do {
            let pipeline = try options.load()
            if let reportFile {
                let url = URL(fileURLWithPath: reportFile).standardizedFileURL
                if let what = pipeline.conflict(ofOutput: url, others: [pipeline.report.xlsx, pipeline.report.json].compactMap { $0 }) {
                    throw PipelineError(.invalidPipeline, stage: "pipectl",
                                        "--report '\(reportFile)' is \(what): writing the report there would destroy it; name a file of its own")
                }
            }
            let inputs = try InputFiles(pipeline: pipeline)
            let digests = InputDigests(pipeline: pipeline)
            // A dry run writes nothing at all: only a report --report asks for.
            let reports = ReportFiles(settings: dryRun ? ReportSettings() : pipeline.report, extra: reportFile, digests: digests)
            for (url, _) in reports.files { try ReportFiles.checkWritable(url, name: Terminal.display(url)) }
            let runner = Runner(pipeline: pipeline)
            let review = ChangeReview(pipeline: pipeline)
            let started = Date()
            var staged: ReportFiles.Staged?
            do {
                let progress = quiet ? nil : ProgressLine(runner: runner)
                defer { progress?.clear() }
                let sink = try SQLiteSink(settings: pipeline.store, model: pipeline.model, waitingForLock: wait, dryRun: dryRun)
                if pipeline.store.layout == .coredata, pipeline.store.uuid == nil {
                    // The same inputs give the same UUID, and so the same bytes.
                    sink.storeUUID = { [digests] isCancelled in
                        CoreDataMetadata.storeUUID(from: try digests.storeDigest(isCancelled: isCancelled))
                    }
                }
                // Called with the new store complete and checked, the old one still in place: the
                // last moment a failure leaves the old store, so the inputs are checked and the
                // reports written then.
                sink.review = { [dryRun] newStore in
                    try inputs.checkUnchanged()
                    // The data checks, on the new store while the old one is in place: a failure keeps it.
                    runner.log.checkResults = try DataChecks.run(pipeline, storeAt: newStore, placeholders: runner.log.placeholders)
                    if let failure = DataChecks.failure(of: runner.log.checkResults, naming: true, then: "; the store was left as it was") {
                        throw failure
                    }
                    guard !reports.files.isEmpty else { return }
                    // Only the report shows the changes: a run without one does not pay for comparing.
                    review.review(newStore)
                    staged = try reports.stage(runner: runner, outcome: dryRun ? .dryRun : .succeeded, changes: review,
                                               store: dryRun ? nil : newStore, status: progress.flatMap { _ in StatusLine() })
                }
                try runner.run(into: sink, dryRun: dryRun)
                try staged?.commit()
            } catch {
                staged?.discard()
                let error = userFacing(error)
                // Under on_reject: fail the rejected records are the reason: list them; failed checks likewise.
                if !quiet, error.kind == .checksFailed { RunSummary.printChecks(runner.log.checkResults) }
                if !quiet, error.kind == .rejected {
                    RunSummary(runner: runner, elapsed: Date().timeIntervalSince(started), dryRun: dryRun).printIssues()
                }
                // The report says why the run failed, unless another run holds the store (and
                // writes the reports). A report that cannot be written is told, but the run's own
                // error is the one that counts.
                if error.kind != .busy {
                    do {
                        try reports.write(runner: runner, outcome: .failed(error.description), changes: review)
                    } catch let reportError {
                        // The same report failing again says nothing new.
                        let reportError = userFacing(reportError)
                        if reportError.description != error.description { Terminal.standardError.tell(reportError.description + "\n") }
                    }
                }
                throw error
            }
            if !quiet {
                try RunSummary(runner: runner, elapsed: Date().timeIntervalSince(started), dryRun: dryRun).print()
                if case .success(let changes) = review.result { try Terminal.standardOutput.write(ChangesText.summary(changes)) }
            }
        } catch {
            throw fail(with: error)
        }
    }
}
