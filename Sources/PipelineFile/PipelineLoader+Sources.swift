import Foundation
import Diagnostics
import Pipeline

extension PipelineLoader.Context {
    /// `sources:`: a non-empty list, names unique.
    func sources(from node: ConfigNode, model: StoreModel) throws -> [SourceDefinition] {
        guard let items = node.sequence else {
            throw node.error(.pipelineWrongType, "'sources' expects a list of sources, found \(node.kindDescription)")
        }
        guard !items.isEmpty else { throw node.error(.pipelineEmptyValue, "'sources' is empty: a pipeline needs at least one source") }
        var seen: [String: ConfigNode] = [:]
        return try items.map { item in
            let options = try Options(item, spec: PipelineSpecs.source, stage: "pipeline")
            let nameNode = try options.required("name")
            guard let name = nameNode.scalar, !name.isEmpty else { throw nameNode.error(.pipelineEmptyValue, "'name' must not be empty") }
            if let first = seen[name] {
                throw nameNode.error(.pipelineDuplicateName, "there is already a source named '\(name)'"
                                                                 + (first.location.line.map { " (line \($0))" } ?? "")
                                                                 + "; source names must be unique")
            }
            seen[name] = nameNode
            let transformNode = options.node("transform")
            let configs = try transformNode.map(transforms) ?? []
            let loads = try loads(from: options.required("load"), model: model)
            let steps = try configs.map { step in
                var step = step
                step.node = try step.kind.completed(step.node, loads: loads, model: model)
                return try checked(step)
            }
            try checkListFields(steps.flatMap { $0.kind.listFields($0.node) }, in: loads, model: model)
            return SourceDefinition(
                name: name,
                reader: try readerConfig(from: options.required("read")),
                transforms: steps,
                loads: loads,
                onDuplicate: options.string("on_duplicate").flatMap(DuplicatePolicy.init(rawValue:)) ?? .keep,
                location: item.location)
        }
    }

    /// A field a step makes a list (`split`) read by an attribute or a to-one link, which take one
    /// value: an error at the load that reads it. To-many links read lists, and so does a
    /// SwiftData array property.
    private func checkListFields(_ lists: [String], in loads: [LoadSpec], model: StoreModel) throws {
        guard !lists.isEmpty else { return }
        func check(_ load: LoadSpec, inList: Bool) throws {
            let arrays = Set(model.allAttributes(of: load.entity).filter { $0.arrayElement != nil }.map(\.name))
            for assignment in load.assignments where lists.contains(assignment.field) && !inList && !arrays.contains(assignment.attribute) {
                throw PipelineError(.invalidPipeline, code: .pipelineListIntoAttribute, at: assignment.location, stage: "pipeline",
                                    "field '\(assignment.field)' is a list (a 'split' step makes it one), and '\(load.entity).\(assignment.attribute)' "
                                        + "takes one value; load a list through a to-many relationship, such as "
                                        + "'tags: { Tag: { name: \(assignment.field) } }'", sourceLine: assignment.sourceLine)
            }
            for link in load.links { try check(link.target, inList: inList || link.isToMany) }
        }
        for load in loads { try check(load, inList: false) }
    }

    /// `read:`: one key names the format and the input, the others are that format's options.
    func readerConfig(from node: ConfigNode) throws -> ReaderConfig {
        let pairs = node.mapping ?? []
        let formats = registry.readers.map(\.name)
        let formatList = formats.isEmpty ? "no reader formats are registered" : "formats: " + formats.joined(separator: ", ")

        var found: (kind: any ReaderKind, key: ConfigNode, value: ConfigNode)?
        for (key, value) in pairs {
            guard let name = key.scalar, let kind = registry.reader(named: name) else { continue }
            if let first = found {
                throw key.error(.pipelineSeveralFormats, "'read' names two formats, '\(first.kind.name)' and '\(name)'; a source reads one input")
            }
            found = (kind, key, value)
        }
        guard let (kind, _, pathNode) = found else {
            // A key that no format takes as an option is most likely a misspelled format.
            let optionNames = Set(registry.readers.flatMap { $0.spec.options.map(\.name) })
            if let stray = pairs.first(where: { !optionNames.contains($0.key.scalar ?? "") }) {
                let name = stray.key.scalar ?? ""
                throw stray.key.error(.pipelineUnknownFormat,
                                      "unknown reader format '\(name)'\(Suggestion.hint(for: name, in: formats)) (\(formatList))")
            }
            let example = formats.first.map { ", e.g. '\($0): data/items.\($0)'" } ?? ""
            throw node.error(.pipelineMissingKey, "'read' needs a key naming the format and the input file\(example) (\(formatList))")
        }

        guard let path = pathNode.scalar, !path.isEmpty else {
            throw pathNode.error(.pipelineWrongType, "'\(kind.name)' expects the path of the input file, found \(pathNode.kindDescription)")
        }
        let options = try Options(node, spec: kind.spec.named("read"), stage: "pipeline", ignoring: [kind.name])
        try kind.validate(options)
        let input = try self.input(path, at: pathNode)
        return ReaderConfig(kind: kind, input: input, options: options, location: node.location)
    }

    /// An input file, resolved against the pipeline's folder; it must exist and be a file.
    func input(_ path: String, at node: ConfigNode) throws -> Input {
        let url = resolve(path)
        let shown = displayPath(of: url)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw PipelineError(.io, code: .inputNotFound, at: node.location, stage: "pipeline", "no such file: \(shown)",
                                sourceLine: node.sourceLine)
        }
        guard !isDirectory.boolValue else {
            throw PipelineError(.io, code: .inputIsAFolder, at: node.location, stage: "pipeline", "\(shown) is a directory, not an input file",
                                sourceLine: node.sourceLine)
        }
        return Input(url: url, displayPath: shown)
    }

    /// `transform:`: a list of one-key mappings naming a transform; each is made once here so that
    /// its option errors surface before any record is read.
    func transforms(from node: ConfigNode) throws -> [TransformConfig] {
        if node.isNull { return [] }
        guard let items = node.sequence else {
            throw node.error(.pipelineWrongType, "'transform' expects a list of steps such as '- trim: all', found \(node.kindDescription)")
        }
        let names = registry.transforms.map(\.name)
        return try items.map { item in
            guard let pairs = item.mapping, pairs.count == 1, let (key, value) = pairs.first, let name = key.scalar else {
                throw item.error(.pipelineWrongType, "each transform step is a mapping with one key naming the transform, such as '- trim: all'"
                                                         + ", found \(item.kindDescription)")
            }
            guard let kind = registry.transform(named: name) else {
                throw key.error(.pipelineUnknownTransform, "unknown transform '\(name)'\(Suggestion.hint(for: name, in: names))"
                                                               + " (transforms: \(names.joined(separator: ", ")))")
            }
            return TransformConfig(kind: kind, node: resolvingPaths(in: value, spec: kind.spec))
        }
    }

    /// A step's path options (`file`'s `folder`) resolved against the pipeline's folder, as the
    /// inputs are: the step then reads the same files wherever pipectl runs from.
    func resolvingPaths(in node: ConfigNode, spec: ComponentSpec) -> ConfigNode {
        guard let pairs = node.mapping, spec.options.contains(where: { $0.kind == .path }) else { return node }
        let resolved = pairs.map { key, value in
            guard spec.option(named: key.scalar ?? "")?.kind == .path, let path = value.scalar, !path.isEmpty else { return (key, value) }
            return (key, ConfigNode(.scalar(resolve(path).path), at: value.location, sourceLine: value.sourceLine, isQuoted: value.isQuoted))
        }
        return ConfigNode(.mapping(resolved), at: node.location, sourceLine: node.sourceLine, isQuoted: node.isQuoted)
    }

    /// Makes the step once, so that a mistake in its options is an error of the pipeline file.
    func checked(_ config: TransformConfig) throws -> TransformConfig {
        do {
            _ = try config.make()
        } catch var error as PipelineError where error.kind == .invalidPipeline {
            // A mistake in the file, whichever component finds it, is the pipeline's to report.
            error.stage = "pipeline"
            throw error
        }
        return config
    }
}
