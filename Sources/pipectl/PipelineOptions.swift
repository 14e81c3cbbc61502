import ArgumentParser
import Foundation
import Pipeline
import PipelineFile

/// The pipeline file argument shared by the commands that read one.
struct PipelineOptions: ParsableArguments {
    @Argument(help: "The pipeline file (YAML).", completion: .file(extensions: ["yaml", "yml"]))
    var pipeline: String

    func load() throws -> PipelineDefinition {
        try PipelineLoader.load(contentsOf: URL(fileURLWithPath: pipeline), registry: Components.registry)
    }
}
