import Foundation
import Diagnostics
import Pipeline

extension PipelineLoader.Context {
    /// `store:`: path, layout and metadata.
    func storeSettings(from node: ConfigNode) throws -> StoreSettings {
        let options = try Options(node, spec: PipelineSpecs.store, stage: "pipeline")
        var modelPaths: [URL] = []
        if let modelNode = options.node("model") {
            // One model file or folder, or the `.swift` files of a SwiftData app's model.
            for node in modelNode.sequence ?? [modelNode] {
                guard let path = node.scalar, !path.isEmpty else {
                    throw node.error(.pipelineWrongType, "'model' expects a file path or a list of them, found \(node.kindDescription)")
                }
                let url = resolve(path)
                guard FileManager.default.fileExists(atPath: url.path) else {
                    throw PipelineError(.io, code: .modelNotFound, at: node.location, stage: "pipeline",
                                        "no such model: \(displayPath(of: url))", sourceLine: node.sourceLine)
                }
                modelPaths.append(url)
            }
            if modelPaths.count > 1, let other = modelPaths.first(where: { $0.pathExtension != "swift" }) {
                throw modelNode.error(.pipelineInvalidModelList,
                                      "a list of models is a SwiftData app's .swift files; '\(displayPath(of: other))' is not one")
            }
        }
        let pathNode = try options.required("path")
        guard let path = pathNode.scalar, !path.isEmpty else { throw pathNode.error(.pipelineEmptyValue, "'path' must not be empty") }
        let layout = options.string("layout").flatMap(StoreLayout.init(rawValue:)) ?? .sqlite
        let metadata = try options.node("metadata").map(metadataValues) ?? []
        var uuid: String?
        if let uuidNode = options.node("uuid") {
            guard let text = uuidNode.scalar, let parsed = UUID(uuidString: text) else {
                throw uuidNode.error(.pipelineInvalidUUID,
                                     "'uuid' expects a UUID such as 3F2504E0-4F89-11D3-9A0C-0305E82C3301, found \(uuidNode.kindDescription)")
            }
            uuid = parsed.uuidString
        }
        var schema: String?
        if let schemaNode = options.node("schema") {
            guard let name = schemaNode.scalar, !name.isEmpty else { throw schemaNode.error(.pipelineEmptyValue, "'schema' must name a VersionedSchema") }
            guard modelPaths.contains(where: { !["xcdatamodeld", "xcdatamodel"].contains($0.pathExtension) }) else {
                throw schemaNode.error(.pipelineSchemaNeedsSwiftData,
                                       "'schema' names a VersionedSchema of a SwiftData app's @Model source: 'model' must be that source")
            }
            schema = name
        }
        let history = options.bool("history") ?? false
        if history, layout != .coredata, let historyNode = options.node("history") {
            throw historyNode.error(.pipelineHistoryNeedsCoredata,
                                    "'history' writes Core Data's persistent-history tables: it needs 'layout: coredata'")
        }
        var settings = StoreSettings(path: resolve(path), layout: layout, modelPaths: modelPaths, metadata: metadata, uuid: uuid,
                                     history: history, location: node.location)
        settings.schema = schema
        if let configurationNode = options.node("configuration") {
            guard let name = configurationNode.scalar, !name.isEmpty else {
                throw configurationNode.error(.pipelineEmptyValue, "'configuration' must name a configuration of the model")
            }
            guard !modelPaths.isEmpty else {
                throw configurationNode.error(.pipelineUnknownConfiguration,
                                              "'configuration' names a configuration of the app's model: 'model' must name that model")
            }
            settings.configuration = name
        }
        return settings
    }

    /// The model marked with the store's configuration, if it names one; errors point at `configuration:`.
    func configured(_ model: StoreModel, store: StoreSettings, node: ConfigNode) throws -> StoreModel {
        guard let name = store.configuration else { return model }
        let options = try Options(node, spec: PipelineSpecs.store, stage: "pipeline")
        let at = options.node("configuration") ?? node
        do {
            return try model.configured(as: name)
        } catch {
            throw at.error(error.code, error.message)
        }
    }

    /// `metadata:` values typed as written: unquoted `true`/`false`, integers and decimals keep
    /// their type, anything else (and anything quoted) is text.
    func metadataValues(from node: ConfigNode) throws -> [(key: String, value: Value)] {
        guard let pairs = node.mapping else {
            throw node.error(.pipelineWrongType, "'metadata' expects a mapping of names to values, found \(node.kindDescription)")
        }
        return try pairs.map { key, value in
            guard let name = key.scalar, !name.isEmpty else {
                throw key.error(.pipelineInvalidName, "metadata names must be plain names, found \(key.kindDescription)")
            }
            guard let text = value.scalar else {
                throw value.error(.pipelineWrongType,
                                  "metadata '\(name)' expects a single value (text, number or true/false), found \(value.kindDescription)")
            }
            return (name, PipelineLoader.Context.typedScalar(text, quoted: value.isQuoted))
        }
    }

    static func typedScalar(_ text: String, quoted: Bool) -> Value {
        guard !quoted else { return .text(text) }
        switch text {
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        default: break
        }
        if let integer = Int64(text) { return .integer(integer) }
        if AttributeType.looksNumeric(text), let double = Double(text), double.isFinite { return .double(double) }
        return .text(text)
    }
}
