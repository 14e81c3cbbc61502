import Foundation

extension PipelineLoader.Context {
    /// `store:`: path, layout and metadata.
    func storeSettings(from node: ConfigNode) throws -> StoreSettings {
        let options = try Options(node, spec: PipelineSpecs.store, stage: "pipeline")
        if options.has("model") {
            throw (options.keyNode("model") ?? node).error(
                "reading the app's Core Data model ('model:') is not supported yet; declare the entities under 'entities:' instead")
        }
        let pathNode = try options.required("path")
        guard let path = pathNode.scalar, !path.isEmpty else { throw pathNode.error("'path' must not be empty") }
        let layout = options.string("layout").flatMap(StoreLayout.init(rawValue:)) ?? .sqlite
        let metadata = try options.node("metadata").map(metadataValues) ?? []
        return StoreSettings(path: resolve(path), layout: layout, modelPath: nil, metadata: metadata,
                             location: node.location)
    }

    /// `metadata:` values typed as written: unquoted `true`/`false`, integers and decimals keep
    /// their type, anything else (and anything quoted) is text.
    func metadataValues(from node: ConfigNode) throws -> [(key: String, value: Value)] {
        guard let pairs = node.mapping else {
            throw node.error("'metadata' expects a mapping of names to values, found \(node.kindDescription)")
        }
        return try pairs.map { key, value in
            guard let name = key.scalar, !name.isEmpty else {
                throw key.error("metadata names must be plain names, found \(key.kindDescription)")
            }
            guard let text = value.scalar else {
                throw value.error("metadata '\(name)' expects a single value (text, number or true/false), found \(value.kindDescription)")
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
