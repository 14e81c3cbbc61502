import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
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
            + "matches an entity) loading the entity it is named after (ignoring case, spaces, underscores and a plural "
            + "ending), else the one whose attributes its fields name; fields are matched to attributes (ignoring case, "
            + "spaces and underscores), keys come from the model's uniqueness constraints (else from a field whose sampled "
            + "values are all there and all differ), and trim, number, date and map steps from the values. Every guess is "
            + "marked in a comment. The file is checked as `pipectl validate` would, then run on the sampled records into "
            + "a store of its own, removed after: its first lines say how many load. A draft that loads none is not "
            + "written (exit 65) unless --force.")

    @Option(help: ArgumentHelp("The app's model: an .xcdatamodeld, an .xcdatamodel, or a SwiftData app's @Model source.", valueName: "model"),
            completion: .file(extensions: ["xcdatamodeld", "xcdatamodel", "swift"]))
    var model: String

    @Argument(help: "The inputs (CSV, XML, JSON, JSON Lines, property list, .xlsx workbook).", completion: .file())
    var inputs: [String]

    @Option(name: .shortAndLong, help: ArgumentHelp("The pipeline file to write.", valueName: "file"))
    var output = "pipeline.yaml"

    @Option(help: ArgumentHelp("The time zone the exports' dates are in (default UTC, marked as a guess).", valueName: "zone"))
    var timezone: String?

    @Flag(help: "Replace the pipeline file if it exists; write a draft that loads none of the sampled records.")
    var force = false

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("name at least one input file") }
    }

    func run() throws {
        do {
            let outputURL = URL(fileURLWithPath: output).standardizedFileURL
            try checkOutput(outputURL)
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
            let pipeline = try PipelineLoader.load(yaml: yaml, file: outputURL, registry: Components.registry)
            // Then run on the sample: a draft whose every record is turned away is no start.
            let trial = try DraftTrial.run(pipeline, limit: InputSample.sampled)
            let tally = DraftTrial.tally(trial.loaded, of: trial.read, whole: trial.whole)
            if trial.loaded == 0 {
                let firsts = trial.sources.compactMap { source in source.firstTurnedAway.map { "source '\(source.name)': \($0)" } }
                let why = trial.failure.map { ["the run fails: " + $0.description] } ?? firsts
                let message = "the draft loads no record: \(tally)" + (why.isEmpty ? "" : " (\(why.joined(separator: "; ")))")
                guard force else {
                    throw PipelineError(.invalidPipeline, code: .initDraftLoadsNothing, at: Location(file: output), stage: "init",
                                        message + "; not written. Map what its comments name, or write it anyway with --force")
                }
                Terminal.standardError.tell("\(output): warning: init: \(message); written as --force says\n")
            }
            let text = PipelineDraft.placing(trial.comment, in: yaml)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            // Without --force, a file that appeared since the check is not replaced either.
            try Data(text.utf8).write(to: outputURL, options: force ? .atomic : .withoutOverwriting)
            try Terminal.standardOutput.write("wrote \(output): \(sources) source\(sources == 1 ? "" : "s"), \(tally); "
                                                  + "check the guesses its comments mark, then `pipectl run \(output)`\n")
        } catch {
            throw fail(with: error)
        }
    }

    /// The pipeline file may be new, or (with --force) a regular file that is neither an input nor
    /// part of the model: never a device, a FIFO, a symbolic link (which would write to whatever it
    /// leads to), an input or the model, whatever --force says.
    private func checkOutput(_ url: URL) throws {
        let at = Location(file: output)
        var status = stat()
        guard lstat(url.path, &status) == 0 else { return }
        let type = status.st_mode & S_IFMT
        guard type == S_IFREG else {
            let what = switch type {
            case S_IFLNK: "a symbolic link"
            case S_IFDIR: "a folder"
            case S_IFCHR, S_IFBLK: "a device"
            case S_IFIFO: "a FIFO"
            case S_IFSOCK: "a socket"
            default: "not a regular file"
            }
            throw PipelineError(.io, code: .initOutputNotARegularFile, at: at, stage: "init",
                                "the path is \(what), and init writes its pipeline file to a regular file only; choose another with -o")
        }
        let written = url.resolvingSymlinksInPath().pathComponents
        for (path, what) in [(model, "the model")] + inputs.map({ ($0, "an input") }) {
            var other = stat()
            let named = URL(fileURLWithPath: path).standardizedFileURL
            let same = stat(named.path, &other) == 0 && other.st_dev == status.st_dev && other.st_ino == status.st_ino
            // A model is often a folder (.xcdatamodeld): its files are the model too.
            let folder = named.resolvingSymlinksInPath().pathComponents
            let inside = written.count > folder.count && Array(written.prefix(folder.count)) == folder
            if same || inside {
                throw PipelineError(.invalidPipeline, code: .initOutputIsAnInput, at: at, stage: "init",
                                    "this is \(what) '\(path)': writing the pipeline file there would destroy it; choose another with -o")
            }
        }
        if !force {
            throw PipelineError(.io, code: .initOutputExists, at: at, stage: "init",
                                "the file exists; choose another with -o, or replace it with --force")
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
