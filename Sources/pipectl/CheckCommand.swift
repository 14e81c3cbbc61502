import ArgumentParser
import Diagnostics
import Foundation
import Pipeline
import StoreTools

/// `pipectl check STORE --pipeline P`: the pipeline's `checks:` on a store already built.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Run a pipeline's data checks (checks:) on an existing store.",
        discussion: "Exits 0 when every check passes, 69 when one fails. 'placeholders: none' needs a run to tell, and "
            + "fails here saying so.")

    @Argument(help: "The store to check.", completion: .file())
    var store: String

    @Option(help: ArgumentHelp("The pipeline whose checks run (and whose model and layout read the store).", valueName: "file"),
            completion: .file(extensions: ["yaml", "yml"]))
    var pipeline: String

    @Option(name: .customLong("var"), help: ArgumentHelp("A value for ${NAME} in the pipeline file (repeatable).", valueName: "NAME=VALUE"))
    var variables: [String] = []

    func run() throws {
        do {
            let definition = try PipelineOptions(pipeline: pipeline, variables: variables).load()
            guard !definition.checks.isEmpty else {
                throw PipelineError(.invalidPipeline, code: .checksNoneDeclared, at: Location(file: pipeline), stage: "checks",
                                    "the pipeline has no checks: section")
            }
            let results = try DataChecks.run(definition, storeAt: URL(fileURLWithPath: store), name: store, placeholders: nil)
            RunSummary.printChecks(results)
            // The offending records are in the list just printed.
            if let failure = DataChecks.failure(of: results, naming: false) { throw failure }
        } catch {
            throw fail(with: error)
        }
    }
}
