import ArgumentParser
import Foundation
import Pipeline
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

    @Flag(help: "Read, transform and check everything, then throw the new store away.")
    var dryRun = false

    @Flag(name: .shortAndLong, help: "Print errors only.")
    var quiet = false

    @Option(name: .customLong("report"), help: ArgumentHelp(
        "Also write the import report to this file (.xlsx or .json).", valueName: "file"))
    var reportFile: String?

    func validate() throws {
        if let reportFile, ReportFiles.format(of: reportFile) == nil {
            throw ValidationError("--report '\(reportFile)': the report is written as .xlsx or .json; name the file so")
        }
    }

    func run() throws {
        do {
            let pipeline = try options.load()
            let digests = InputDigests(pipeline: pipeline)
            let reports = ReportFiles(settings: pipeline.report, extra: reportFile, digests: digests)
            let runner = Runner(pipeline: pipeline)
            let review = ChangeReview(pipeline: pipeline)
            let started = Date()
            do {
                let progress = quiet ? nil : ProgressLine(runner: runner)
                defer { progress?.clear() }
                let sink = try SQLiteSink(settings: pipeline.store, model: pipeline.model)
                if pipeline.store.layout == .coredata, pipeline.store.uuid == nil {
                    // The same inputs give the same UUID, and so the same bytes.
                    sink.storeUUID = { [digests] isCancelled in
                        CoreDataMetadata.storeUUID(from: try digests.storeDigest(isCancelled: isCancelled))
                    }
                }
                // Only the report shows the changes: a run without one does not pay for comparing.
                if !reports.files.isEmpty { sink.review = { [review] in review.review($0) } }
                try runner.run(into: sink, dryRun: dryRun)
            } catch {
                let error = userFacing(error)
                // Under on_reject: fail the rejected records are the reason: list them.
                if !quiet, error.kind == .rejected {
                    RunSummary(runner: runner, elapsed: Date().timeIntervalSince(started), dryRun: dryRun).printIssues()
                }
                // The report says why the run failed; a report that cannot be written is told, but
                // the run's own error is the one that counts.
                do {
                    try reports.write(runner: runner, outcome: .failed(error.description), changes: review)
                } catch let reportError {
                    Terminal.standardError.tell(userFacing(reportError).description + "\n")
                }
                throw error
            }
            if !quiet {
                try RunSummary(runner: runner, elapsed: Date().timeIntervalSince(started), dryRun: dryRun).print()
                if case .success(let changes) = review.result { try Terminal.standardOutput.write(ChangesText.summary(changes)) }
            }
            try reports.write(runner: runner, outcome: dryRun ? .dryRun : .succeeded, changes: review,
                              status: quiet ? nil : StatusLine())
        } catch {
            throw fail(with: error)
        }
    }
}
