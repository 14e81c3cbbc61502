import Foundation
import Testing
import Yams
@testable import PipelineFile
import Pipeline

/// docs/pipeline.schema.json is the schema the specs make, and it takes every pipeline of the
/// repository and refuses a misspelt key. Regenerate it with RECORD_SNAPSHOTS=1 (or
/// `pipectl schema > docs/pipeline.schema.json`).
@Suite struct PipelineSchemaTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let file = root.appendingPathComponent("docs/pipeline.schema.json")

    @Test("docs/pipeline.schema.json is the one the specs make")
    func schemaIsCurrent() throws {
        let generated = PipelineSchema.json(registry: loaderTestRegistry)
        if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" { try generated.write(to: Self.file, atomically: true, encoding: .utf8) }
        #expect(try String(contentsOf: Self.file, encoding: .utf8) == generated,
                "docs/pipeline.schema.json is out of date: run RECORD_SNAPSHOTS=1 swift test --filter PipelineSchemaTests")
    }

    static func pipelines() throws -> [URL] {
        var found: [URL] = []
        for folder in ["pipelines", "bench/pipelines"] {
            let enumerator = FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            while let url = enumerator?.nextObject() as? URL {
                if url.pathExtension == "yaml" { found.append(url) }
            }
        }
        return found.sorted { $0.path < $1.path }
    }

    @Test("the schema takes every pipeline of the repository")
    func takesEveryPipeline() throws {
        let schema = PipelineSchema.schema(registry: loaderTestRegistry)
        let files = try Self.pipelines()
        #expect(files.count >= 12)
        for file in files {
            let document = try Yams.load(yaml: String(contentsOf: file, encoding: .utf8))
            let errors = SchemaCheck(root: schema).errors(in: document as Any)
            #expect(errors.isEmpty, "\(file.lastPathComponent): \(errors)")
        }
    }

    @Test("the schema refuses a misspelt key, a wrong value and a step of no transform")
    func refusesMistakes() throws {
        let schema = PipelineSchema.schema(registry: loaderTestRegistry)
        let grocery = try String(contentsOf: Self.root.appendingPathComponent("pipelines/grocery.yaml"), encoding: .utf8)
        for (old, new) in [("delimiter: auto", "delimter: auto"), ("layout: coredata", "layout: core-data"),
                           ("- trim: all", "- trimm: all"), ("name: grocery", "nmae: grocery"),
                           ("unique: name }", "unique: name, uniqe: x }")] {
            #expect(grocery.contains(old), "\(old)")
            let document = try Yams.load(yaml: grocery.replacingOccurrences(of: old, with: new))
            #expect(!SchemaCheck(root: schema).errors(in: document as Any).isEmpty, "\(new) passed")
        }
    }
}

/// Checks a value against the parts of JSON Schema (draft 7) that `PipelineSchema` uses: type,
/// enum, const, properties, required, additionalProperties, items, minItems, anyOf, oneOf, $ref.
struct SchemaCheck {
    let root: [String: Any]

    func errors(in value: Any, against schema: [String: Any]? = nil, at path: String = "") -> [String] {
        let schema = schema ?? root
        if let ref = schema["$ref"] as? String, let name = ref.split(separator: "/").last,
           let target = (root["definitions"] as? [String: Any])?[String(name)] as? [String: Any] {
            return errors(in: value, against: target, at: path)
        }
        var out: [String] = []
        if let type = schema["type"] as? String, !Self.isOfType(value, type) { return ["\(path): not \(type)"] }
        if let allowed = schema["enum"] as? [Any], !allowed.contains(where: { "\($0)" == "\(value)" }) { out.append("\(path): '\(value)' not in enum") }
        if let constant = schema["const"], "\(constant)" != "\(value)" { out.append("\(path): not \(constant)") }
        if let options = schema["anyOf"] as? [[String: Any]], !options.contains(where: { errors(in: value, against: $0, at: path).isEmpty }) {
            out.append("\(path): matches none of anyOf")
        }
        if let options = schema["oneOf"] as? [[String: Any]], options.filter({ errors(in: value, against: $0, at: path).isEmpty }).count != 1 {
            out.append("\(path): matches not exactly one of oneOf")
        }
        if let object = value as? [String: Any] {
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for name in schema["required"] as? [String] ?? [] where object[name] == nil { out.append("\(path): lacks \(name)") }
            for (key, inner) in object {
                if let property = properties[key] as? [String: Any] {
                    out += errors(in: inner, against: property, at: path + "/" + key)
                } else if schema["additionalProperties"] as? Bool == false {
                    out.append("\(path): '\(key)' not allowed")
                } else if let additional = schema["additionalProperties"] as? [String: Any] {
                    out += errors(in: inner, against: additional, at: path + "/" + key)
                }
            }
        }
        if let array = value as? [Any] {
            if let minimum = schema["minItems"] as? Int, array.count < minimum { out.append("\(path): fewer than \(minimum) items") }
            if let items = schema["items"] as? [String: Any] {
                for (i, item) in array.enumerated() { out += errors(in: item, against: items, at: "\(path)/\(i)") }
            }
        }
        return out
    }

    static func isOfType(_ value: Any, _ type: String) -> Bool {
        switch type {
        case "object": value is [String: Any]
        case "array": value is [Any]
        case "string": value is String
        case "boolean": value is Bool
        case "integer": value is Int
        default: true
        }
    }
}
