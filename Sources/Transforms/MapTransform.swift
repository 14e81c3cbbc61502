import Diagnostics
import Pipeline

/// `map`: replaces the values of fields by a table, for exports that spell values their own way
/// (`ja`/`nein` for booleans, `kg`/`Kilogramm` for one unit).
///
/// ```yaml
/// - map: { fields: [vegan], values: { ja: true, nein: false }, otherwise: reject }
/// ```
/// Keys compare after trimming, case-sensitively unless `ignore_case: true`. A value the table
/// does not hold is rejected (naming it and the known ones), kept, emptied, or replaced by the
/// `otherwise` text. An empty value stays empty unless the table maps `""`; each element of a
/// list is mapped on its own.
public struct MapTransform: TransformKind {
    public var name: String { "map" }

    public var spec: ComponentSpec {
        ComponentSpec(
            name: "map",
            summary: "Replaces values by a table: `map: { fields: [vegan], values: { ja: true, nein: false } }`. Keys"
                + " compare after trimming; a value the table does not hold is rejected unless `otherwise` says more.",
            options: [
                OptionSpec("fields", .stringOrList, required: true, "The fields whose values are mapped."),
                OptionSpec("values", .mapping, required: true, "Each value as the input has it, and the text it becomes."),
                OptionSpec("otherwise", .string, default: "reject",
                           "For a value the table does not hold: 'reject' the record, 'keep' the value, 'empty' it, or any other text to put instead."),
                OptionSpec("ignore_case", .bool, default: "false", "Compare keys without regard to case."),
            ])
    }

    public init() {}

    public func make(_ node: ConfigNode) throws -> any Transform {
        let options = try Options(node, spec: spec)
        let fields = try FieldReference.list(options.node("fields") ?? node, option: "fields", stage: name)
        let ignoreCase = options.bool("ignore_case") ?? false
        let valuesNode = options.node("values") ?? node  // required: the spec has said so
        var table: [String: Value] = [:]
        var keys: [String] = []
        for (key, value) in valuesNode.mapping ?? [] {
            guard let from = key.scalar else {
                throw key.error(.pipelineWrongType, "'values' keys are the values to map, found \(key.kindDescription)", stage: name)
            }
            guard let to = value.scalar else {
                throw value.error(.pipelineWrongType, "'\(from)' maps to one value (write \"\" for none), found \(value.kindDescription)",
                                  stage: name)
            }
            let normalized = Step.key(from, ignoreCase: ignoreCase)
            guard table.updateValue(to.isEmpty ? .null : .text(to), forKey: normalized) == nil else {
                throw key.error(.pipelineDuplicateName, "'\(from)' is mapped twice\(ignoreCase ? " (ignoring case)" : "")", stage: name)
            }
            keys.append(from)
        }
        guard !table.isEmpty else {
            throw valuesNode.error(.pipelineEmptyValue, "'values' maps nothing: give each value the text it becomes", stage: name)
        }
        let otherwise: Step.Otherwise
        switch options.string("otherwise") ?? "reject" {
        case "reject": otherwise = .reject
        case "keep": otherwise = .keep
        case "empty": otherwise = .value(.null)
        case let text: otherwise = .value(.text(text))
        }
        return Step(fields: fields, table: table, keys: keys, otherwise: otherwise, ignoreCase: ignoreCase)
    }

    public final class Step: Transform {
        enum Otherwise {
            case reject, keep
            case value(Value)
        }

        let references: [FieldReference]
        let table: [String: Value]
        /// The table's keys as written, for a rejection to list.
        let keys: [String]
        let otherwise: Otherwise
        let ignoreCase: Bool
        private var indexes: [Int] = []

        init(fields: [FieldReference], table: [String: Value], keys: [String], otherwise: Otherwise, ignoreCase: Bool) {
            self.references = fields
            self.table = table
            self.keys = keys
            self.otherwise = otherwise
            self.ignoreCase = ignoreCase
        }

        static func key(_ text: String, ignoreCase: Bool) -> String {
            let trimmed = Trimming.trimmed(text) ?? text
            return ignoreCase ? trimmed.lowercased() : trimmed
        }

        public func bind(fields: [String]) throws -> [String] {
            indexes = try references.map { try $0.index(in: fields, stage: "map") }
            return fields
        }

        public func apply(_ record: inout Record) throws {
            for (n, i) in indexes.enumerated() where i < record.values.count {
                if case .list(let elements) = record.values[i] {
                    record.values[i] = .list(try elements.map { try mapped($0, field: n, in: record) })
                } else {
                    record.values[i] = try mapped(record.values[i], field: n, in: record)
                }
            }
        }

        private func mapped(_ value: Value, field: Int, in record: Record) throws -> Value {
            let text = value.displayText
            if let found = table[Step.key(text, ignoreCase: ignoreCase)] { return found }
            if value.isEmpty { return value }
            switch otherwise {
            case .keep: return value
            case .value(let replacement): return replacement
            case .reject:
                let known = keys.prefix(10).map { "'\($0)'" }.joined(separator: ", ") + (keys.count > 10 ? ", ..." : "")
                throw Rejection(at: record.location(ofField: indexes[field]), stage: "map", field: references[field].name,
                                rawValue: text, reason: "not in the map (\(known))"
                                    + Suggestion.hint(for: text, in: keys))
            }
        }
    }
}
