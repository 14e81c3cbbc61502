import Foundation
import Diagnostics
import Pipeline

/// Loads a pipeline file and checks everything that can be checked before a run: every key, every
/// name, the model, the inputs' existence, and each reader's and transform's options.
///
/// ```swift
/// let pipeline = try PipelineLoader.load(contentsOf: URL(fileURLWithPath: "pipelines/grocery.yaml"),
///                                        registry: ComponentRegistry(readers: [CSVReaderKind()]))
/// ```
///
/// Every error is a `PipelineError` at the offending key or value, with that line and a caret:
/// `.invalidPipeline` for the file's content, `.io` for a pipeline or input file that cannot be read.
public enum PipelineLoader {
    /// Reads and loads the pipeline file at `url`. Paths in it are relative to its folder.
    public static func load(contentsOf url: URL, registry: ComponentRegistry,
                            variables: PipelineVariables = PipelineVariables()) throws -> PipelineDefinition {
        let shown = Context.shownPath(of: url)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw PipelineError(.io, code: .pipelineNotFound, at: Location(file: shown), stage: "pipeline", "no such file")
        }
        guard !isDirectory.boolValue else {
            throw PipelineError(.io, code: .pipelineIsAFolder, at: Location(file: shown), stage: "pipeline",
                                "this is a directory, not a pipeline file")
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw PipelineError(.io, code: .pipelineCannotRead, at: Location(file: shown), stage: "pipeline",
                                "cannot read the file: \(SystemErrorWords.words(for: error))")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw notUTF8(data, shown: shown)
        }
        return try load(yaml: text, file: url, registry: registry, variables: variables)
    }

    /// Where the first byte that is not UTF-8 is, and what it is.
    static func notUTF8(_ data: Data, shown: String) -> PipelineError {
        var parser = Unicode.UTF8.ForwardParser()
        var bytes = data.makeIterator()
        var offset = 0, line = 1, column = 1
        while case .valid(let scalar) = parser.parseScalar(from: &bytes) {
            offset += scalar.count
            if scalar.count == 1, scalar.first == 0x0A { line += 1; column = 1 } else { column += 1 }
        }
        let byte = offset < data.count ? data[data.startIndex + offset] : 0
        return PipelineError(.invalidPipeline, code: .pipelineNotUTF8, at: Location(file: shown, line: line, column: column), stage: "pipeline",
                             "the pipeline file is not UTF-8 text: byte 0x\(String(byte, radix: 16, uppercase: true)) "
                                 + "is not UTF-8 (save the file as UTF-8)")
    }

    /// Loads a pipeline from its text; `file` is where it lives (paths in it are relative to its
    /// folder) and how messages name it.
    public static func load(yaml: String, file: URL, registry: ComponentRegistry,
                            variables: PipelineVariables = PipelineVariables()) throws -> PipelineDefinition {
        let context = Context(file: file, registry: registry)
        guard let root = try ConfigNode.parse(yaml: yaml, file: context.shownFile) else {
            throw PipelineError(.invalidPipeline, code: .pipelineEmptyFile, at: Location(file: context.shownFile, line: 1, column: 1),
                                stage: "pipeline", "the pipeline file is empty")
        }
        return try context.pipeline(from: try variables.substitute(in: root))
    }
}

extension PipelineLoader {
    /// What loading one file needs everywhere: where the file is, how to name paths, the components.
    struct Context {
        let file: URL
        /// The pipeline file as messages name it.
        let shownFile: String
        /// The folder paths in the file are relative to.
        let folder: URL
        let registry: ComponentRegistry
        let currentDirectory: String

        init(file: URL, registry: ComponentRegistry) {
            self.file = file.absoluteURL.standardizedFileURL
            self.shownFile = Context.shownPath(of: file)
            self.folder = self.file.deletingLastPathComponent()
            self.registry = registry
            self.currentDirectory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).standardizedFileURL.path
        }

        /// The path as the user gave it when it is relative; else relative to the current
        /// directory where it lies below it.
        static func shownPath(of url: URL) -> String {
            if url.baseURL != nil, !url.relativePath.isEmpty { return url.relativePath }
            let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).standardizedFileURL.path
            return relative(url.standardizedFileURL.path, to: cwd)
        }

        static func relative(_ path: String, to directory: String) -> String {
            let prefix = directory.hasSuffix("/") ? directory : directory + "/"
            return path.hasPrefix(prefix) && path.count > prefix.count ? String(path.dropFirst(prefix.count)) : path
        }

        /// A path from the file, resolved against the file's folder.
        func resolve(_ path: String) -> URL {
            let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : folder.appendingPathComponent(path)
            return url.standardizedFileURL
        }

        /// How messages and reports show a resolved path.
        func displayPath(of url: URL) -> String {
            Context.relative(url.path, to: currentDirectory)
        }

        /// The top level.
        func pipeline(from root: ConfigNode) throws -> PipelineDefinition {
            let options = try Options(root, spec: PipelineSpecs.pipeline, stage: "pipeline")

            let version = try options.required("version")
            guard options.integer("version") == 1 else {
                throw version.error(.pipelineUnsupportedVersion, "unsupported format version \(version.scalar ?? ""); this pipectl reads version 1")
            }
            let name = try options.required("name")
            guard let pipelineName = name.scalar, !pipelineName.isEmpty else {
                throw name.error(.pipelineEmptyValue, "'name' must not be empty")
            }

            let store = try storeSettings(from: options.required("store"))
            let model: StoreModel
            if !store.modelPaths.isEmpty {
                let whole = try storeModel(from: options.node("entities"), on: readModel(store.modelPaths, schema: store.schema, at: options.node("store")))
                model = try configured(whole, store: store, node: options.required("store"))
            } else {
                guard let entities = options.node("entities") else {
                    throw root.error(.pipelineNoEntities,
                                     "the pipeline declares no entities: add an 'entities:' section or name the app's model in 'store.model'")
                }
                model = try storeModel(from: entities)
            }
            let sources = try sources(from: options.required("sources"), model: model)
            let report = try options.node("report").map(reportSettings) ?? ReportSettings()
            let onReject = options.string("on_reject").flatMap(RejectPolicy.init(rawValue:)) ?? .continue

            let pipeline = PipelineDefinition(file: file, name: pipelineName, store: store, model: model, sources: sources,
                                              report: report, onReject: onReject, allowEmpty: options.bool("allow_empty") ?? false,
                                              checks: try options.node("checks").map { try checks(from: $0, model: model) } ?? [])
            try checkReportPaths(of: pipeline, in: options.node("report"))
            return pipeline
        }

        /// A report path that names the store, an input, the pipeline file or the other report
        /// would destroy it: refused before anything runs.
        func checkReportPaths(of pipeline: PipelineDefinition, in node: ConfigNode?) throws {
            guard let node else { return }
            let options = try Options(node, spec: PipelineSpecs.report, stage: "pipeline")
            let reports = [("xlsx", pipeline.report.xlsx), ("json", pipeline.report.json)]
            for (key, url) in reports {
                guard let url, let value = options.node(key) else { continue }
                let others = reports.compactMap { $0.0 < key ? $0.1 : nil }
                if let what = pipeline.conflict(ofOutput: url, others: others) {
                    throw value.error(.pipelineReportPathConflict,
                                      "the report path '\(value.scalar ?? "")' is \(what): writing the report there would destroy it; "
                                          + "name a file of its own", stage: "pipeline")
                }
            }
        }

        func reportSettings(from node: ConfigNode) throws -> ReportSettings {
            let options = try Options(node, spec: PipelineSpecs.report, stage: "pipeline")
            if let rowsNode = options.node("stored_rows"), let rows = options.integer("stored_rows"), rows < 0 {
                throw rowsNode.error(.pipelineValueOutOfRange,
                                     "'stored_rows' must be 0 or more (the most stored rows the workbook shows per entity), not \(rows)")
            }
            return ReportSettings(xlsx: try options.path("xlsx").map(resolve),
                                  json: try options.path("json").map(resolve),
                                  durations: options.bool("durations") ?? false,
                                  storedRows: options.integer("stored_rows"),
                                  xlsxLocation: options.node("xlsx")?.location,
                                  jsonLocation: options.node("json")?.location)
        }
    }
}

extension Options {
    /// The value of a key the spec marks required (and `Options` has therefore checked is there).
    func required(_ key: String) throws -> ConfigNode {
        guard let value = node(key) else {
            throw node.error(.pipelineMissingKey, "'\(spec.name)' needs the key '\(key)'", stage: stage)
        }
        return value
    }

    /// A path value, which must not be empty.
    func path(_ key: String) throws -> String? {
        guard let value = node(key) else { return nil }
        guard let path = value.scalar, !path.isEmpty else {
            throw value.error(.pipelineWrongType, "'\(key)' expects a file path, found \(value.kindDescription)", stage: stage)
        }
        return path
    }

    /// The key node itself (not its value), for errors about the key.
    func keyNode(_ key: String) -> ConfigNode? {
        node.mapping?.first { $0.key.scalar == key }?.key
    }
}
