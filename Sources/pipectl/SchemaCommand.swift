import PipelineRun
import ArgumentParser
import PipelineFile

/// `pipectl schema`: the JSON Schema of pipeline files, for editors (docs/pipeline.schema.json).
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the JSON Schema of pipeline files, for editors' completion and checks.",
        discussion: "Made from the same declarations pipectl checks pipeline files against. Point an editor at it "
            + "with a first line '# yaml-language-server: $schema=pipeline.schema.json'.")

    func run() throws {
        try Terminal.standardOutput.write(PipelineSchema.json(registry: Components.registry))
    }
}
