import ArgumentParser
import Foundation
import Pipeline
import PipelineFile
import PipelineRun

/// The pipeline file argument shared by the commands that read one.
struct PipelineOptions: ParsableArguments {
    @Argument(help: "The pipeline file (YAML).", completion: .file(extensions: ["yaml", "yml"]))
    var pipeline: String

    @Option(name: .customLong("var"), help: ArgumentHelp(
        "A value for ${NAME} in the pipeline file, before the environment's (repeatable).", valueName: "NAME=VALUE"))
    var variables: [String] = []

    init() {}

    init(pipeline: String, variables: [String]) {
        self.pipeline = pipeline
        self.variables = variables
    }

    func validate() throws {
        for assignment in variables where PipelineVariables.parse(assignment) == nil {
            throw ValidationError("--var expects NAME=VALUE (a name of letters, digits and '_'), not '\(assignment)'")
        }
    }

    func load() throws -> PipelineDefinition {
        let given = Dictionary(variables.compactMap(PipelineVariables.parse), uniquingKeysWith: { _, last in last })
        return try PipelineRun.load(URL(fileURLWithPath: pipeline), variables: given)
    }
}
