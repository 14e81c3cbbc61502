import Diagnostics
import ArgumentParser
import Foundation
import Pipeline
import PipelineRun
import Safeguards

/// `pipectl run FILE`: runs a pipeline (PipelineRun) and tells how it went.
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
            let run = PipelineRun(pipeline: try options.load(),
                                  options: .init(dryRun: dryRun, reportFile: reportFile.map { URL(fileURLWithPath: $0) }, waitForLock: wait,
                                                 duplicatesShown: RunSummary.shownPerKind))
            let progress = quiet ? nil : ProgressLine(run: run)
            do {
                defer { progress?.clear() }
                // The summary is printed from the run's log: no report value to make.
                try run.execute()
            } catch {
                // Under on_reject: fail the rejected records are the reason: list them; failed checks likewise.
                if !quiet, error.kind == .checksFailed { RunSummary.printChecks(run.log.checkResults) }
                if !quiet, error.kind == .rejected { RunSummary(run: run, dryRun: dryRun).printIssues() }
                // The same report failing again says nothing new.
                if let reportFailure = run.reportFailure, reportFailure.description != error.description {
                    Terminal.standardError.tell(reportFailure.description + "\n")
                }
                throw error
            }
            if !quiet {
                try RunSummary(run: run, dryRun: dryRun).print()
                if case .success(let changes) = run.changes { try Terminal.standardOutput.write(ChangesText.summary(changes)) }
            }
        } catch {
            throw fail(with: error)
        }
    }
}
