import Foundation
import Pipeline

/// The JSON Schema of pipeline files, made from the same specs the loader checks files against
/// (`PipelineSpecs`, every reader's and transform's `spec`): for editors' completion and checks
/// (`# yaml-language-server: $schema=...`). `docs/pipeline.schema.json` is this, and a test keeps
/// it so.
public enum PipelineSchema {
    /// The schema as pretty-printed JSON with sorted keys: the same bytes for the same specs.
    public static func json(registry: ComponentRegistry) -> String {
        let data = try! JSONSerialization.data(withJSONObject: schema(registry: registry), options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    public static func schema(registry: ComponentRegistry) -> [String: Any] {
        func ref(_ name: String) -> [String: Any] { ["$ref": "#/definitions/\(name)"] }
        var definitions: [String: Any] = [:]
        definitions["store"] = object(PipelineSpecs.store)
        definitions["report"] = object(PipelineSpecs.report)
        definitions["attribute"] = object(PipelineSpecs.attribute)
        definitions["relationship"] = object(PipelineSpecs.relationship)
        var entity = object(PipelineSpecs.entity)
        var entityProperties = entity["properties"] as? [String: Any] ?? [:]
        entityProperties["attributes"] = described(PipelineSpecs.entity, "attributes", [
            "type": "object",
            "additionalProperties": ["anyOf": [["type": "string", "enum": AttributeType.spellings.map(\.0)], ref("attribute")]],
        ])
        entityProperties["relationships"] = described(PipelineSpecs.entity, "relationships", [
            "type": "object", "additionalProperties": ["anyOf": [["type": "string"], ref("relationship")]],
        ])
        entity["properties"] = entityProperties
        definitions["entity"] = entity

        // `read:` names one format (its key holds the input path) and that format's options.
        definitions["read"] = ["description": "The input file and its reader format and options.",
                               "oneOf": registry.readers.map { kind -> [String: Any] in
            var schema = object(kind.spec)
            var properties = schema["properties"] as? [String: Any] ?? [:]
            properties[kind.name] = ["type": "string", "description": "The \(kind.name) input file, relative to the pipeline file's folder."]
            schema["properties"] = properties
            schema["required"] = [kind.name] + (schema["required"] as? [String] ?? [])
            return schema
        }]
        // A transform step is a mapping of one key, the transform's name, to its options.
        definitions["step"] = ["description": "One transform step: `- trim: all`, `- number: { fields: [quantity] }`.",
                               "oneOf": registry.transforms.map { kind -> [String: Any] in
            var value = object(kind.spec)
            if let shorthand = kind.spec.shorthand { value = ["anyOf": [value, valueSchema(shorthand)]] }
            return ["type": "object", "additionalProperties": false, "required": [kind.name], "properties": [kind.name: value],
                    "description": kind.spec.summary]
        }]
        var source = object(PipelineSpecs.source)
        var sourceProperties = source["properties"] as? [String: Any] ?? [:]
        sourceProperties["read"] = ref("read")
        sourceProperties["transform"] = described(PipelineSpecs.source, "transform", ["type": "array", "items": ref("step")])
        source["properties"] = sourceProperties
        definitions["source"] = source

        var root = object(PipelineSpecs.pipeline)
        var properties = root["properties"] as? [String: Any] ?? [:]
        properties["version"] = described(PipelineSpecs.pipeline, "version", ["const": 1])
        properties["store"] = ref("store")
        properties["report"] = ref("report")
        properties["entities"] = described(PipelineSpecs.pipeline, "entities", ["type": "object", "additionalProperties": ref("entity")])
        properties["sources"] = described(PipelineSpecs.pipeline, "sources", ["type": "array", "minItems": 1, "items": ref("source")])
        root["properties"] = properties
        root["$schema"] = "http://json-schema.org/draft-07/schema#"
        root["title"] = "pipectl pipeline file"
        root["definitions"] = definitions
        return root
    }

    /// An object schema of a spec's options: their kinds, `required`, nothing else allowed (a
    /// `<field>` option stands for any field name).
    static func object(_ spec: ComponentSpec) -> [String: Any] {
        var properties: [String: Any] = [:]
        var schema: [String: Any] = ["type": "object", "description": spec.summary]
        for option in spec.options {
            var value = valueSchema(option.kind)
            value["description"] = option.summary + (option.defaultDescription.map { " Default: \($0)." } ?? "")
            if option.name.hasPrefix("<") {
                schema["additionalProperties"] = value
            } else {
                properties[option.name] = value
            }
        }
        if schema["additionalProperties"] == nil { schema["additionalProperties"] = false }
        schema["properties"] = properties
        let required = spec.options.filter { $0.required && !$0.name.hasPrefix("<") }.map(\.name)
        if !required.isEmpty { schema["required"] = required }
        return schema
    }

    static func valueSchema(_ kind: OptionSpec.ValueKind) -> [String: Any] {
        let strings: [String: Any] = ["type": "array", "items": ["type": "string"]]
        switch kind {
        case .string, .path: return ["type": "string"]
        case .bool: return ["type": "boolean"]
        case .integer: return ["type": "integer"]
        case .stringList: return strings
        case .stringOrList, .pathOrList: return ["anyOf": [["type": "string"], strings]]
        case .oneOf(let values): return ["enum": values]
        case .mapping: return ["type": "object"]
        case .any: return [:]
        }
    }

    private static func described(_ spec: ComponentSpec, _ option: String, _ schema: [String: Any]) -> [String: Any] {
        var schema = schema
        if let option = spec.option(named: option) { schema["description"] = option.summary }
        return schema
    }
}
