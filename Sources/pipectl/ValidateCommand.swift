import ArgumentParser
import Pipeline

/// `pipectl validate FILE`: checks a pipeline file without reading its inputs.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a pipeline file: keys, types, entities, loads and input paths.",
        discussion: "Reads no input records; use 'pipectl run --dry-run' to check the data as well.")

    @OptionGroup var options: PipelineOptions

    func run() throws {
        do {
            let pipeline = try options.load()
            let entities = pipeline.model.entities.count, sources = pipeline.sources.count
            try Terminal.standardOutput.write(
                "\(options.pipeline): ok: pipeline '\(pipeline.name)', \(entities) entit\(entities == 1 ? "y" : "ies"), "
                    + "\(sources) source\(sources == 1 ? "" : "s")\n")
        } catch {
            throw fail(with: error)
        }
    }
}
