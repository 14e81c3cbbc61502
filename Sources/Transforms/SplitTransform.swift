import Diagnostics
import Pipeline

/// `split`: cuts text fields into lists at a separator, for a cell that holds several values
/// (`vegan; quick`). A to-many link then makes one linked record per element.
///
/// ```yaml
/// - split: { fields: [tags], separator: ";" }
/// ```
/// Each element is trimmed as `trim` trims (spaces, tabs, line breaks, no-break spaces); empty
/// elements are dropped, so an empty cell is an empty list.
public struct SplitTransform: TransformKind {
    public var name: String { "split" }

    public var spec: ComponentSpec {
        ComponentSpec(
            name: "split",
            summary: "Cuts text into a list at a separator: `split: { fields: [tags], separator: \";\" }`. Each element is"
                + " trimmed and empty ones are dropped; a to-many relationship links one record per element.",
            options: [
                OptionSpec("fields", .stringOrList, required: true, "The fields holding several values."),
                OptionSpec("separator", .string, default: "\",\"", "The text between two values."),
            ])
    }

    public init() {}

    public func listFields(_ node: ConfigNode) -> [String] {
        guard let fields = node.mapping?.first(where: { $0.key.scalar == "fields" })?.value else { return [] }
        return fields.sequence.map { $0.compactMap(\.scalar) } ?? fields.scalar.map { [$0] } ?? []
    }

    public func make(_ node: ConfigNode) throws -> any Transform {
        let options = try Options(node, spec: spec)
        let fields = try FieldReference.list(options.node("fields") ?? node, option: "fields", stage: name)
        let separator = options.string("separator") ?? ","
        guard !separator.isEmpty else {
            throw (options.node("separator") ?? node).error(.pipelineEmptyValue, "'separator' must not be empty", stage: name)
        }
        return Step(fields: fields, separator: separator)
    }

    public final class Step: Transform {
        let references: [FieldReference]
        let separator: String
        private var indexes: [Int] = []

        init(fields: [FieldReference], separator: String) {
            self.references = fields
            self.separator = separator
        }

        public func bind(fields: [String]) throws -> [String] {
            indexes = try references.map { try $0.index(in: fields, stage: "split") }
            return fields
        }

        public func apply(_ record: inout Record) throws {
            for i in indexes where i < record.values.count {
                switch record.values[i] {
                case .text(let text):
                    record.values[i] = .list(text.components(separatedBy: separator).compactMap { part in
                        let element = Trimming.trimmed(part) ?? part
                        return element.isEmpty ? nil : .text(element)
                    })
                case .null:
                    record.values[i] = .list([])
                default:
                    continue  // already a list (JSON), or a typed value: one element
                }
            }
        }
    }
}
