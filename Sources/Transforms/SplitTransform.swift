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
        private var names: [String] = []

        init(fields: [FieldReference], separator: String) {
            self.references = fields
            self.separator = separator
        }

        public func bind(fields: [String]) throws -> [String] {
            indexes = try references.map { try $0.index(in: fields, stage: "split") }
            names = indexes.map { fields[$0] }
            return fields
        }

        public func apply(_ record: inout Record) throws {
            // The record's lists hold at most `Fields.maxListValues` values, as a JSON record's:
            // a field of 8 MB of separators is 8M elements.
            var budget = Fields.maxListValues
            for (position, i) in indexes.enumerated() where i < record.values.count {
                switch record.values[i] {
                case .text(let text):
                    guard let elements = Self.elements(of: text, separator: separator, budget: &budget) else {
                        throw PipelineError(.invalidInput, code: .inputTooManyListValues, at: record.location, stage: "split",
                                            "the lists of one record hold more than \(Fields.maxListValues.grouped) values (field "
                                                + "'\(names[position])' cut at \(Snippet.quoted(separator))), more than pipectl reads")
                    }
                    record.values[i] = .list(elements)
                case .null:
                    record.values[i] = .list([])
                default:
                    continue  // already a list (JSON), or a typed value: one element
                }
            }
        }

        /// `text` cut at each `separator`, each piece trimmed, empty ones left out; nil past `budget`
        /// elements. A walk over the UTF-8 bytes (a separator of valid UTF-8 matches only whole
        /// characters' bytes): no array of every piece before the budget is checked.
        static func elements(of text: String, separator: String, budget: inout Int) -> [Value]? {
            var text = text, separator = separator
            return text.withUTF8 { bytes in
                separator.withUTF8 { mark in
                    var elements: [Value] = []
                    var start = 0, i = 0
                    func add(_ end: Int) -> Bool {
                        let piece = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
                        let element = Trimming.trimmed(piece) ?? piece
                        guard !element.isEmpty else { return true }
                        budget -= 1
                        guard budget >= 0 else { return false }
                        elements.append(.text(element))
                        return true
                    }
                    while i + mark.count <= bytes.count {
                        if bytes[i] == mark[0], mark.indices.allSatisfy({ bytes[i + $0] == mark[$0] }) {
                            guard add(i) else { return nil }
                            i += mark.count
                            start = i
                        } else {
                            i += 1
                        }
                    }
                    guard add(bytes.count) else { return nil }
                    return elements
                }
            }
        }
    }
}
