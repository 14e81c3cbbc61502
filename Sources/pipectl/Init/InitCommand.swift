import ArgumentParser
import Foundation
import PipelineRun
import Diagnostics
import Pipeline
import PipelineFile

/// `pipectl init --model M INPUT... -o pipeline.yaml`: a first pipeline from the app's model and
/// its exports, that validates and runs, with every guess marked for review.
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Draft a pipeline from the app's model and its exports: fields matched to attributes, keys, transforms.",
        discussion: "Each input becomes a source (its format from the extension; of an .xlsx workbook, each sheet that "
            + "matches an entity); its fields are matched to the entity "
            + "whose attributes they name (ignoring case, spaces and underscores), keys come from the model's uniqueness "
            + "constraints (else a guess), and trim, number, date and map steps from the values. Every guess is marked "
            + "in a comment. The file is checked as `pipectl validate` would before it is written.")

    @Option(help: ArgumentHelp("The app's model: an .xcdatamodeld, an .xcdatamodel, or a SwiftData app's @Model source.", valueName: "model"),
            completion: .file(extensions: ["xcdatamodeld", "xcdatamodel", "swift"]))
    var model: String

    @Argument(help: "The inputs (CSV, XML, JSON, JSON Lines, property list, .xlsx workbook).", completion: .file())
    var inputs: [String]

    @Option(name: .shortAndLong, help: ArgumentHelp("The pipeline file to write.", valueName: "file"))
    var output = "pipeline.yaml"

    @Option(help: ArgumentHelp("The time zone the exports' dates are in (default UTC, marked as a guess).", valueName: "zone"))
    var timezone: String?

    @Flag(help: "Replace the pipeline file if it exists.")
    var force = false

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("name at least one input file") }
    }

    func run() throws {
        do {
            let outputURL = URL(fileURLWithPath: output).standardizedFileURL
            if FileManager.default.fileExists(atPath: outputURL.path), !force {
                throw PipelineError(.io, code: .initOutputExists, at: Location(file: output), stage: "init",
                                    "the file exists; choose another with -o, or replace it with --force")
            }
            let folder = outputURL.deletingLastPathComponent()
            let modelURL = URL(fileURLWithPath: model).standardizedFileURL
            let storeModel = try ModelFiles.read(modelURL)
            let samples = try inputs.flatMap { input in
                let url = URL(fileURLWithPath: input).standardizedFileURL
                return try InputSample.read(url, path: Self.relative(url, from: folder))
            }
            var names: [String] = []
            for sample in samples {
                var name = sample.url.deletingPathExtension().lastPathComponent
                if let sheet = sample.sheet, sample.sheetCount > 1 { name += "-\(sheet)" }
                while names.contains(name) { name += "-\(sample.format.rawValue)" }
                names.append(name)
            }
            let isSwiftData = !["xcdatamodeld", "xcdatamodel"].contains(modelURL.pathExtension)
            let modelName = modelURL.deletingPathExtension().lastPathComponent
            let draft = PipelineDraft(model: storeModel, modelPath: Self.relative(modelURL, from: folder), samples: samples,
                                      timezone: timezone, isSwiftData: isSwiftData)
            let (yaml, sources) = draft.yaml(name: isSwiftData ? "default" : modelName.lowercased(),
                                  storePath: isSwiftData ? "build/default.store" : "build/\(modelName).sqlite", inputNames: names)
            guard sources > 0 else {
                let reasons = yaml.split(separator: "\n").filter { $0.hasPrefix("  # ") && $0.contains(" is not read: ") }
                    .map { $0.dropFirst(4) }.joined(separator: "; ")
                throw PipelineError(.invalidInput, code: .initNothingToDraft, at: Location(file: inputs[0]), stage: "init",
                                    "nothing to draft: no input has fields that name an entity's attributes and its key (\(reasons))")
            }
            // Checked as `validate` checks it: a draft that does not load is not written.
            _ = try PipelineLoader.load(yaml: yaml, file: outputURL, registry: Components.registry)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(yaml.utf8).write(to: outputURL)
            try Terminal.standardOutput.write("wrote \(output): \(sources) source\(sources == 1 ? "" : "s"); "
                                                  + "check the guesses its comments mark, then `pipectl run \(output)`\n")
        } catch {
            throw fail(with: error)
        }
    }

    /// `url` as a path relative to `folder` (`../data/x.csv`).
    static func relative(_ url: URL, from folder: URL) -> String {
        let target = url.standardizedFileURL.pathComponents, base = folder.standardizedFileURL.pathComponents
        var common = 0
        while common < min(target.count, base.count), target[common] == base[common] { common += 1 }
        let parts = Array(repeating: "..", count: base.count - common) + target[common...]
        return parts.joined(separator: "/")
    }
}
