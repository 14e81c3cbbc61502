import ArgumentParser
import Foundation
import Pipeline
import SinksSQLite

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

    func run() throws {
        do {
            var pipeline = try options.load()
            if pipeline.store.layout == .coredata, pipeline.store.uuid == nil {
                pipeline.store.uuid = CoreDataMetadata.storeUUID(from: try InputDigest.of(pipeline))
            }
            if pipeline.report.xlsx != nil || pipeline.report.json != nil {
                Terminal.standardError.write(
                    "\(options.pipeline): warning: report: this version of pipectl does not write reports yet; "
                        + "the summary below has the counts\n")
            }
            let sink = try SQLiteSink(settings: pipeline.store, model: pipeline.model)
            let runner = Runner(pipeline: pipeline)
            let started = Date()
            do {
                try runner.run(into: sink, dryRun: dryRun)
            } catch let error as PipelineError {
                // Under on_reject: fail the rejected records are the reason: list them.
                if !quiet, error.kind == .rejected {
                    RunSummary(runner: runner, elapsed: Date().timeIntervalSince(started), dryRun: dryRun).printIssues()
                }
                throw error
            }
            if !quiet {
                RunSummary(runner: runner, elapsed: Date().timeIntervalSince(started), dryRun: dryRun).print()
            }
        } catch let error as PipelineError {
            throw fail(with: error)
        }
    }
}
